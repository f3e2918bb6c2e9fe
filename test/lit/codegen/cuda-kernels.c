// The CUDA target (--target=cuda): each `#pragma mpiad parallel` or
// `#pragma omp parallel for` loop becomes one named kernel (grid-stride loop)
// with a launcher beside it, in the primal, the adjoint and the tangent.
// Scalar sums are block reductions (one value per block), accumulations into
// the loop's own element are plain stores, into a fixed element a block
// reduction, into a neighbour an atomicAdd.  Variables of the loop body are
// computed again by the adjoint kernel instead of being recorded.  Other
// statements on device memory run in a single-thread kernel, with a warning
// in the primal.  Communication on host scalars stays MPI; on device buffers
// (a product over ranks, a Sendrecv halo exchange) it calls libmpiad_gpu, and
// so does the sum over ranks of the replicated gradient.
// RUN: %mpiad-emit --target=cuda %s -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
#include <mpi.h>
#include <math.h>
#include <stdlib.h>

// CHECK: #include "mpiad_gpu.h"

#pragma mpiad differentiate wrt(x, theta) replicated(theta) varying(x)
double loss(const double *x, const double *theta, int n, MPI_Comm comm) {
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    double r = theta[0] * x[i] - 1.0;
    s += r * r;
  }
  double g;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}
// The primal's kernel: a thread-local sum, one value per block.  The loop's
// bounds are computed by the launcher, so n is the launcher's parameter only.
// CHECK-LABEL: static __global__ void loss_k0(const double *x, const double *theta, long mpiad_lo, long mpiad_n, double *mpiad_red) {
// CHECK-NEXT:   double s = 0;
// CHECK-NEXT:   for (long mpiad_t = blockIdx.x * (long)blockDim.x + threadIdx.x; mpiad_t < mpiad_n;
// CHECK-NEXT:        mpiad_t += (long)gridDim.x * blockDim.x) {
// CHECK-NEXT:     int i = (int)(mpiad_lo + mpiad_t);
// CHECK-NEXT:     double r;
// CHECK-NEXT:     r = theta[0] * x[i] - 1.0;
// CHECK-NEXT:     s += r * r;
// CHECK-NEXT:   }
// CHECK-NEXT:   mpiad_gpu_block_sum(s, mpiad_red + 0 * gridDim.x);
// CHECK-NEXT: }
// CHECK-LABEL: static void loss_k0_launch(const double *x, const double *theta, int n, double *mpiad_host_s) {
// CHECK:        int mpiad_nb = mpiad_gpu_blocks(mpiad_n);
// CHECK-NEXT:   double *mpiad_red = mpiad_gpu_partials(0, 1 * mpiad_nb);
// CHECK-NEXT:   loss_k0<<<mpiad_nb, MPIAD_GPU_THREADS>>>(x, theta, mpiad_lo, mpiad_n, mpiad_red);
// CHECK-NEXT:   MPIAD_GPU_CHECK(cudaGetLastError());
// CHECK-NEXT:   *mpiad_host_s += (double)mpiad_gpu_sum_partials(mpiad_red + 0 * mpiad_nb, mpiad_nb);
// CHECK-LABEL: extern "C" double loss(const double *x, const double *theta, int n, MPI_Comm comm) {
// CHECK:        loss_k0_launch(x, theta, n, &s);
// CHECK-NEXT:   double g;
// CHECK-NEXT:   MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
//
// The adjoint kernel computes r again (nothing is recorded), stores into its
// own x_b[i] and sums theta's share in a block reduction.
// CHECK-LABEL: static __global__ void loss_b_k1(
// CHECK:          int i = (int)(mpiad_lo - mpiad_t);
// CHECK-NEXT:     double r = 0;
// CHECK-NEXT:     double r_b = 0;
// CHECK-NEXT:     r = theta[0] * x[i] - 1.0;
// CHECK:          mpiad_acc0 += r_b * x[i];
// CHECK-NEXT:     x_b[i] += theta[0] * r_b;
// CHECK:        mpiad_gpu_block_sum(mpiad_acc0, mpiad_red + 0 * gridDim.x);
// CHECK-LABEL: static void loss_b_k1_launch(
// CHECK:        long mpiad_lo = n - 1;
// CHECK-NEXT:   long mpiad_n = (long)(n - 1) - (long)(0) + 1;
// CHECK:        mpiad_gpu_add_partials(mpiad_red + 0 * mpiad_nb, mpiad_nb, &theta_b_part[0]);
// CHECK-LABEL: extern "C" double loss_b(const double *x, double *x_b, const double *theta, double *theta_b, int n, MPI_Comm comm, double loss_bar) {
// CHECK-NOT:    mpiad_push
// CHECK:        mpiad_gpu_batch mpiad_sum;
// CHECK-NEXT:   double *theta_b_part = (double *)mpiad_gpu_calloc(1, sizeof(double));
// CHECK:        loss_b_k0_launch(x, theta, n, &s);
// CHECK-NEXT:   MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK:        loss_b_k1_launch(x, theta, n, s_b, theta_b_part, x_b);
// CHECK:        mpiad_gpu_batch_begin(&mpiad_sum, comm);
// CHECK-NEXT:   mpiad_gpu_batch_add_f64(&mpiad_sum, theta_b_part, theta_b, 1);
// CHECK-NEXT:   mpiad_gpu_batch_allreduce(&mpiad_sum);
// CHECK-NEXT:   mpiad_gpu_free(theta_b_part);

#pragma mpiad differentiate wrt(u) output(v) varying(u)
void smooth(const double *u, double *v, int n, double a) {
#pragma mpiad parallel
  for (int i = 1; i < n - 1; i++)
    v[i] = a * u[i - 1] + u[i] * u[i] + a * u[i + 1];
  v[0] = u[0];
  v[n - 1] = u[n - 1];
}
// WARN: cuda-kernels.c:[[@LINE-3]]:8: warning: on the CUDA target this statement reads or writes device memory outside a '#pragma mpiad parallel' loop: it runs in a single-thread kernel (correct, slow)
// WARN-NOT: warning:
// CHECK-LABEL: static __global__ void smooth_k1(const double *u, double *v, int n) {
// CHECK-NEXT:   v[0] = u[0];
// CHECK-NEXT:   v[n - 1] = u[n - 1];
// CHECK-NEXT: }
// CHECK:        smooth_k1<<<1, 1>>>(u, v, n);
// Neighbours' adjoints are atomic; so is the loop's own element, since the
// neighbouring threads add into it at the same time (a plain += here lost
// updates on an H200: the adjoint was off by up to 300%).
// CHECK-LABEL: static __global__ void smooth_b_k3(
// CHECK:          atomicAdd(&u_b[i - 1], a * v_b[i]);
// CHECK-NEXT:     atomicAdd(&u_b[i], v_b[i] * u[i]);
// CHECK-NEXT:     atomicAdd(&u_b[i], u[i] * v_b[i]);
// CHECK-NEXT:     atomicAdd(&u_b[i + 1], a * v_b[i]);
// CHECK-NEXT:     v_b[i] = 0;
// CHECK-LABEL: extern "C" void smooth_b(
// CHECK:        smooth_b_k0_launch(u, v, n, a);
// CHECK-NEXT:   smooth_b_k1_launch(u, v, n);
// CHECK:        smooth_b_k2_launch(n, v_b, u_b);
// CHECK-NEXT:   smooth_b_k3_launch(u, n, a, v_b, u_b);

#pragma mpiad differentiate forward wrt(x) name(energy_d)
double energy(const double *x, int n, MPI_Comm comm) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    e += x[i] * x[i] * x[i];
  double t;
  MPI_Allreduce(&e, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
// The tangent kernel sums the value and its tangent: two reductions.
// CHECK-LABEL: static __global__ void energy_d_k0(const double *x, double *x_d, long mpiad_lo, long mpiad_n, double *mpiad_red) {
// CHECK-NEXT:   double e = 0;
// CHECK-NEXT:   double e_d = 0;
// CHECK:        mpiad_gpu_block_sum(e, mpiad_red + 0 * gridDim.x);
// CHECK-NEXT:   mpiad_gpu_block_sum(e_d, mpiad_red + 1 * gridDim.x);
// CHECK-LABEL: extern "C" double energy_d(const double *x, double *x_d, int n, MPI_Comm comm, double *energy_dot) {
// CHECK:        energy_d_k0_launch(x, n, x_d, &e, &e_d);
// CHECK:        MPI_Allreduce(&e_d, &t_d, 1, MPI_DOUBLE, MPI_SUM, comm);

// Communication on device buffers calls libmpiad_gpu: the call, and the
// forward/reverse helpers of its rule; on host scalars it stays MPI (above).
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void prodall(const double *x, double *y, int n, MPI_Comm comm) {
  MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_PROD, comm);
}
// CHECK-LABEL: extern "C" void prodall(const double *x, double *y, int n, MPI_Comm comm) {
// CHECK-NEXT:   mpiad_gpu_allreduce(x, y, n, MPI_DOUBLE, MPI_PROD, comm);
// CHECK-LABEL: extern "C" void prodall_b(
// CHECK:        mpiad_gpu_allreduce_fwd(x, y, n, MPI_DOUBLE, MPI_PROD, comm);
// CHECK:        mpiad_gpu_allreduce_rev(x_b, y_b, n, MPI_DOUBLE, MPI_PROD, comm, 0);

// A halo exchange: device work buffers, Sendrecv on device addresses, and the
// pointer values the reverse sweep restores (recorded on the host).
#pragma mpiad differentiate wrt(u) output(v) varying(u)
void ring(const double *u, double *v, int n, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *g = malloc((size_t)(n + 1) * sizeof(double));
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    g[i + 1] = u[i];
  MPI_Sendrecv(&g[n], 1, MPI_DOUBLE, (rank + 1) % size, 0, &g[0], 1,
               MPI_DOUBLE, (rank + size - 1) % size, 0, comm,
               MPI_STATUS_IGNORE);
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    v[i] = g[i] * g[i + 1];
  free(g);
}
// CHECK-LABEL: extern "C" void ring_b(
// CHECK:        g = (double *)mpiad_gpu_malloc((size_t)(n + 1) * sizeof(double));
// CHECK-NEXT:   g_b = (double *)mpiad_gpu_calloc(1, (size_t)(n + 1) * sizeof(double));
// CHECK:        mpiad_gpu_sendrecv_fwd(&g[n], 1, MPI_DOUBLE,
// CHECK:        /* reverse sweep */
// CHECK:        mpiad_gpu_sendrecv_rev(&g_b[n], 1, MPI_DOUBLE,
// CHECK:        mpiad_gpu_free(g);
// CHECK-NEXT:   mpiad_gpu_free(g_b);
// CHECK-NEXT:   g_b = (double *)mpiad_pop_ptr();
// CHECK-NEXT:   g = (double *)mpiad_pop_ptr();
