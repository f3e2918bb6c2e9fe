/* GPU benchmark of the CUDA target (docs/gpu.md, docs/performance.md): for n
 * elements per rank it prints, per kernel, the time of the generated primal
 * and adjoint, the bandwidth they reach as a fraction of a device-to-device
 * cudaMemcpy of the same size, and the adjoint/primal ratio; and the time of
 * mpiad_gpu_allreduce against ncclAllReduce called directly (one rank, one
 * GPU: NCCL's own path).  Every result is checked first (exit 1 on a wrong
 * value).  Run it through bench/gpu/run.sh on a machine with a GPU; without
 * one it prints "no CUDA device" and exits 77.
 *
 *   bench_gpu [n reps]      (defaults 10000000 20)
 */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad_gpu.h"
#ifdef MPIAD_BENCH_NCCL
#include <nccl.h>
#endif

void stream(const double *x, double *y, double a, int n);
void stream_b(const double *x, double *x_b, double *y, double *y_b, double a,
              int n);
double sumsq(const double *x, int n, MPI_Comm comm);
double sumsq_b(const double *x, double *x_b, int n, MPI_Comm comm,
               double sumsq_bar);

static double now(void) {
  cudaDeviceSynchronize();
  return MPI_Wtime();
}

static double *dalloc(size_t n) {
  double *p = NULL;
  if (cudaMalloc((void **)&p, n * sizeof *p) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc of %zu doubles failed\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* Best of reps, in seconds. */
#define TIME(best, reps, call)                                                 \
  do {                                                                         \
    best = 1e30;                                                               \
    for (int r_ = 0; r_ < (reps); r_++) {                                      \
      double t0_ = now();                                                      \
      call;                                                                    \
      double t_ = now() - t0_;                                                 \
      best = t_ < best ? t_ : best;                                            \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size, devices = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0)
      printf("no CUDA device: skipped\n");
    MPI_Finalize();
    return 77;
  }
  long nl = argc > 1 ? atol(argv[1]) : 10000000L;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (nl < 1 || nl > 1000000000L || reps < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: %s [n>0 reps>0]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int n = (int)nl;
  size_t bytes = (size_t)n * sizeof(double);
  double *h = malloc(bytes);
  for (int i = 0; i < n; i++)
    h[i] = 1.0 + 1e-3 * (i % 1000);
  double *x = dalloc(n), *y = dalloc(n), *xb = dalloc(n), *yb = dalloc(n);
  cudaMemcpy(x, h, bytes, cudaMemcpyHostToDevice);

  /* Checks: the values, once, against the formula. */
  int bad = 0;
  const double a = 0.5;
  stream(x, y, a, n);
  cudaMemcpy(h, y, bytes, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i += 1 + n / 1000) {
    double xi = 1.0 + 1e-3 * (i % 1000);
    if (fabs(h[i] - a * xi * xi) > 1e-15 * a * xi * xi) {
      if (!bad && rank == 0)
        printf("stream: y[%d] = %.17g, want %.17g\n", i, h[i], a * xi * xi);
      bad = 1;
    }
  }
  cudaMemset(xb, 0, bytes);
  for (int i = 0; i < n; i++)
    h[i] = 1.0;
  cudaMemcpy(yb, h, bytes, cudaMemcpyHostToDevice);
  stream_b(x, xb, y, yb, a, n);
  cudaMemcpy(h, xb, bytes, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i += 1 + n / 1000) {
    double xi = 1.0 + 1e-3 * (i % 1000);
    if (fabs(h[i] - 2 * a * xi) > 1e-15 * 2 * a * xi) {
      if (!bad && rank == 0)
        printf("stream_b: x_b[%d] = %.17g, want %.17g\n", i, h[i], 2 * a * xi);
      bad = 1;
    }
  }
  /* The sum of n squares on the host, compensated (Kahan), so that it is
   * accurate to a few ulps whatever n: the GPU's blocked sum differs from it
   * by its own rounding, well under 1e-11 relative for n up to 1e9. */
  double want = 0, comp = 0;
  for (int i = 0; i < n; i++) {
    double xi = 1.0 + 1e-3 * (i % 1000);
    double yk = xi * xi - comp, t = want + yk;
    comp = (t - want) - yk;
    want = t;
  }
  want *= size;
  double got = sumsq(x, n, comm);
  if (fabs(got - want) > 1e-11 * want) {
    if (rank == 0)
      printf("sumsq: %.17g, want %.17g\n", got, want);
    bad = 1;
  }
  if (bad) {
    if (rank == 0)
      printf("FAIL: a generated GPU function computed a wrong value\n");
    MPI_Finalize();
    return 1;
  }

  /* Reference bandwidth: a device-to-device copy reads and writes n. */
  double t_copy, t_p, t_a, t_sp, t_sa;
  TIME(t_copy, reps, cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
  double bw_copy = 2.0 * bytes / t_copy;
  TIME(t_p, reps, stream(x, y, a, n));
  /* The adjoint is called with its seed restored each time. */
  TIME(t_a, reps, (cudaMemcpy(yb, y, bytes, cudaMemcpyDeviceToDevice),
                   stream_b(x, xb, y, yb, a, n)));
  t_a -= t_copy; /* the seed's copy is not the adjoint's */
  TIME(t_sp, reps, sumsq(x, n, comm));
  TIME(t_sa, reps, sumsq_b(x, xb, n, comm, 1.0));

  /* Bytes each one must move at least. */
  double b_p = 2.0 * bytes;               /* read x, write y */
  double b_a = 2.0 * bytes + 5.0 * bytes; /* primal; read x, x_b, y_b; write
                                             x_b, y_b */
  double b_sp = 1.0 * bytes;              /* read x */
  double b_sa = 3.0 * bytes;              /* read x, x_b; write x_b */
  if (rank == 0) {
    printf("n = %d doubles per rank, %d ranks, best of %d; copy bandwidth "
           "%.1f GB/s\n",
           n, size, reps, bw_copy / 1e9);
    printf("%-8s %12s %12s %10s %10s %10s\n", "kernel", "primal ms",
           "adjoint ms", "primal bw", "adjoint bw", "adj/primal");
    printf("%-8s %12.3f %12.3f %9.0f%% %9.0f%% %10.2f\n", "stream",
           1e3 * t_p, 1e3 * t_a, 100 * b_p / t_p / bw_copy,
           100 * b_a / t_a / bw_copy, t_a / t_p);
    printf("%-8s %12.3f %12.3f %9.0f%% %9.0f%% %10.2f\n", "sumsq",
           1e3 * t_sp, 1e3 * t_sa, 100 * b_sp / t_sp / bw_copy,
           100 * b_sa / t_sa / bw_copy, t_sa / t_sp);
    printf("(bw: bytes the kernel must move / time, as a fraction of the "
           "copy's bandwidth)\n");
  }

  /* Collectives: libmpiad_gpu against NCCL called directly. */
  double t_lib;
  TIME(t_lib, reps,
       mpiad_gpu_allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm));
  if (rank == 0)
    printf("allreduce of n doubles: mpiad_gpu_allreduce %.3f ms (%s path)\n",
           1e3 * t_lib, mpiad_gpu_comm_path(comm));
#ifdef MPIAD_BENCH_NCCL
  if (size == 1) {
    ncclComm_t nc;
    ncclUniqueId id;
    ncclGetUniqueId(&id);
    ncclCommInitRank(&nc, 1, id, 0);
    cudaStream_t st;
    cudaStreamCreate(&st);
    double t_nccl;
    TIME(t_nccl, reps,
         (ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st),
          cudaStreamSynchronize(st)));
    printf("allreduce of n doubles: ncclAllReduce %.3f ms; overhead %.1f%%\n",
           1e3 * t_nccl, 100 * (t_lib - t_nccl) / t_nccl);
    cudaStreamDestroy(st);
    ncclCommDestroy(nc);
  }
#endif
  cudaFree(x);
  cudaFree(y);
  cudaFree(xb);
  cudaFree(yb);
  free(h);
  MPI_Finalize();
  return 0;
}
