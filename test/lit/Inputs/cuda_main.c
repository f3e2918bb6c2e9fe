/* Host side of the CUDA target tests: device data made with the CUDA
 * runtime, the generated GPU functions (Inputs/cuda_kernels.c) called on it,
 * and every result compared with formulas evaluated here on the host, in
 * plain C (never with the tool's output): values, adjoints, the dot-product
 * test and central differences of the GPU primal. */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

double loss(const double *x, const double *theta, int n, MPI_Comm comm);
double loss_b(const double *x, double *x_b, const double *theta,
              double *theta_b, int n, MPI_Comm comm, double loss_bar);
void smooth(const double *u, double *v, int n, double a);
void smooth_b(const double *u, double *u_b, double *v, double *v_b, int n,
              double a);
double energy(const double *x, int n, MPI_Comm comm);
double dot(const double *x, const double *y, int n);
double dot_b(const double *x, double *x_b, const double *y, int n,
             double dot_bar);
void prodall(const double *x, double *y, int n, MPI_Comm comm);
void prodall_b(const double *x, double *x_b, double *y, double *y_b, int n,
               MPI_Comm comm);
void halo(const double *u, double *v, int n, MPI_Comm comm);
void halo_b(const double *u, double *u_b, double *v, double *v_b, int n,
            MPI_Comm comm);
double energy_d(const double *x, double *x_d, int n, MPI_Comm comm,
                double *energy_dot);

static int failures;

static void check(const char *what, int n, double got, double want,
                  double rtol) {
  double err = fabs(got - want) / fmax(1.0, fabs(want));
  if (!(err <= rtol)) {
    printf("FAIL %s n=%d: got %.17g want %.17g (rel %.3g)\n", what, n, got,
           want, err);
    failures++;
  }
}

static double *dev(const double *h, int n) {
  double *d = NULL;
  if (cudaMalloc((void **)&d, (size_t)(n > 0 ? n : 1) * sizeof(double)) !=
      cudaSuccess) {
    printf("FAIL cudaMalloc\n");
    exit(1);
  }
  if (n > 0)
    cudaMemcpy(d, h, (size_t)n * sizeof(double), cudaMemcpyHostToDevice);
  return d;
}

static void host(double *h, const double *d, int n) {
  if (n > 0)
    cudaMemcpy(h, d, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost);
}

static double sumAll(double v) {
  double t;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

static void testLoss(int n, int rank) {
  double *x = malloc((size_t)(n + 1) * sizeof(double));
  double theta[2] = {0.75, 0.25};
  for (int i = 0; i < n; i++)
    x[i] = sin(1.0 + i + 7.0 * rank);
  /* The objective, its gradient: formulas. */
  double want = 0, wt0 = 0, wt1 = 0;
  double *wx = malloc((size_t)(n + 1) * sizeof(double));
  for (int i = 0; i < n; i++) {
    double r = theta[0] * x[i] - theta[1];
    want += r * r + sin(x[i]);
    wx[i] = 2 * r * theta[0] + cos(x[i]);
    wt0 += 2 * r * x[i];
    wt1 += -2 * r;
  }
  want = sumAll(want);
  wt0 = sumAll(wt0);
  wt1 = sumAll(wt1);
  double *dx = dev(x, n), *dt = dev(theta, 2);
  double zeros[2] = {0, 0};
  double *dxb = dev(x, n), *dtb = dev(zeros, 2);
  cudaMemset(dxb, 0, (size_t)(n > 0 ? n : 1) * sizeof(double));
  check("loss value", n, loss(dx, dt, n, MPI_COMM_WORLD), want, 1e-12);
  double seed = 1.5;
  double v = loss_b(dx, dxb, dt, dtb, n, MPI_COMM_WORLD, seed);
  check("loss_b value", n, v, want, 1e-12);
  double *gx = malloc((size_t)(n + 1) * sizeof(double)), gt[2];
  host(gx, dxb, n);
  host(gt, dtb, 2);
  for (int i = 0; i < n; i++)
    check("loss_b x_b", n, gx[i], seed * wx[i], 1e-12);
  check("loss_b theta_b[0]", n, gt[0], seed * wt0, 1e-12);
  check("loss_b theta_b[1]", n, gt[1], seed * wt1, 1e-12);
  /* Central differences of the GPU primal along theta[0]. */
  double h = 1e-6, tp[2] = {theta[0] + h, theta[1]},
         tm[2] = {theta[0] - h, theta[1]};
  cudaMemcpy(dt, tp, sizeof tp, cudaMemcpyHostToDevice);
  double fp = loss(dx, dt, n, MPI_COMM_WORLD);
  cudaMemcpy(dt, tm, sizeof tm, cudaMemcpyHostToDevice);
  double fm = loss(dx, dt, n, MPI_COMM_WORLD);
  check("loss central difference", n, gt[0] / seed, (fp - fm) / (2 * h),
        1e-6);
  cudaFree(dx);
  cudaFree(dt);
  cudaFree(dxb);
  cudaFree(dtb);
  free(x);
  free(wx);
  free(gx);
}

static void testSmooth(int n, int rank) {
  if (n < 1)
    return;
  double a = 0.3;
  double *u = malloc((size_t)n * sizeof(double)),
         *du = malloc((size_t)n * sizeof(double)),
         *vb = malloc((size_t)n * sizeof(double)),
         *v = malloc((size_t)n * sizeof(double)),
         *ub = malloc((size_t)n * sizeof(double)),
         *vbh = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) {
    u[i] = cos(0.5 * i + rank);
    du[i] = sin(0.3 * i - rank);
    vb[i] = cos(1.7 * i + 2.0 * rank);
  }
  double *d_u = dev(u, n), *d_v = dev(u, n), *d_vb = dev(vb, n),
         *d_ub = dev(vb, n);
  cudaMemset(d_ub, 0, (size_t)n * sizeof(double));
  smooth(d_u, d_v, n, a);
  host(v, d_v, n);
  for (int i = 1; i < n - 1; i++)
    check("smooth value", n, v[i], a * u[i - 1] + u[i] * u[i] + a * u[i + 1],
          1e-14);
  check("smooth v[0]", n, v[0], u[0], 0);
  check("smooth v[n-1]", n, v[n - 1], u[n - 1], 0);
  cudaMemcpy(d_vb, vb, (size_t)n * sizeof(double), cudaMemcpyHostToDevice);
  smooth_b(d_u, d_ub, d_v, d_vb, n, a);
  host(ub, d_ub, n);
  host(vbh, d_vb, n);
  /* <J du, vb> = <du, J^T vb>, J du from the formula. */
  double lhs = 0, rhs = 0;
  for (int i = 0; i < n; i++) {
    double jdu = (i == 0 || i == n - 1)
                     ? du[i]
                     : a * du[i - 1] + 2 * u[i] * du[i] + a * du[i + 1];
    lhs += jdu * vb[i];
    rhs += du[i] * ub[i];
    check("smooth_b clears v_b", n, vbh[i], 0, 0);
  }
  check("smooth dot-product test", n, rhs, lhs, 1e-12);
  cudaFree(d_u);
  cudaFree(d_v);
  cudaFree(d_vb);
  cudaFree(d_ub);
  free(u);
  free(du);
  free(vb);
  free(v);
  free(ub);
  free(vbh);
}

static void testEnergy(int n, int rank) {
  double *x = malloc((size_t)(n + 1) * sizeof(double)),
         *xd = malloc((size_t)(n + 1) * sizeof(double));
  double want = 0, wantd = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.1 * i - 0.2 * rank;
    xd[i] = cos(i + rank);
    want += x[i] * x[i] * x[i];
    wantd += 3 * x[i] * x[i] * xd[i];
  }
  want = sumAll(want);
  wantd = sumAll(wantd);
  double *dx = dev(x, n), *dxd = dev(xd, n), dot = -1;
  check("energy value", n, energy(dx, n, MPI_COMM_WORLD), want, 1e-12);
  check("energy_d value", n, energy_d(dx, dxd, n, MPI_COMM_WORLD, &dot), want,
        1e-12);
  check("energy_d tangent", n, dot, wantd, 1e-12);
  cudaFree(dx);
  cudaFree(dxd);
  free(x);
  free(xd);
}

static void testDot(int n, int rank) {
  double *x = malloc((size_t)(n + 1) * sizeof(double)),
         *y = malloc((size_t)(n + 1) * sizeof(double)),
         *g = malloc((size_t)(n + 1) * sizeof(double));
  double want = 0;
  for (int i = 0; i < n; i++) {
    x[i] = cos(i + rank);
    y[i] = sin(2.0 * i - rank);
    want += x[i] * y[i];
  }
  double *dx = dev(x, n), *dy = dev(y, n), *dxb = dev(x, n);
  cudaMemset(dxb, 0, (size_t)(n > 0 ? n : 1) * sizeof(double));
  check("dot value", n, dot(dx, dy, n), want, 1e-12);
  check("dot_b value", n, dot_b(dx, dxb, dy, n, 2.0), want, 1e-12);
  host(g, dxb, n);
  for (int i = 0; i < n; i++)
    check("dot_b x_b", n, g[i], 2.0 * y[i], 1e-15);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dxb);
  free(x);
  free(y);
  free(g);
}

/* y[k] = product over ranks of x[k]; x_b[k] = y_b[k] * the product of the
 * other ranks' x[k] (the seed y_b is the same on every rank). */
static void testProd(int n, int rank, int size) {
  double *x = malloc((size_t)(n + 1) * sizeof(double)),
         *all = malloc((size_t)(n + 1) * size * sizeof(double)),
         *yb = malloc((size_t)(n + 1) * sizeof(double)),
         *g = malloc((size_t)(n + 1) * sizeof(double)),
         *y = malloc((size_t)(n + 1) * sizeof(double));
  for (int k = 0; k < n; k++) {
    x[k] = 0.5 + 0.25 * ((k + 3 * rank) % 5);
    yb[k] = cos(k);
  }
  MPI_Allgather(x, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
  double *dx = dev(x, n), *dy = dev(x, n), *dxb = dev(x, n), *dyb = dev(yb, n);
  cudaMemset(dxb, 0, (size_t)(n > 0 ? n : 1) * sizeof(double));
  prodall(dx, dy, n, MPI_COMM_WORLD);
  host(y, dy, n);
  for (int k = 0; k < n; k++) {
    double p = 1;
    for (int r = 0; r < size; r++)
      p *= all[r * n + k];
    check("prodall value", n, y[k], p, 1e-14);
  }
  prodall_b(dx, dxb, dy, dyb, n, MPI_COMM_WORLD);
  host(g, dxb, n);
  host(y, dyb, n);
  for (int k = 0; k < n; k++) {
    double others = 1;
    for (int r = 0; r < size; r++)
      if (r != rank)
        others *= all[r * n + k];
    check("prodall_b x_b", n, g[k], yb[k] * others, 1e-14);
    check("prodall_b clears y_b", n, y[k], 0, 0);
  }
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dxb);
  cudaFree(dyb);
  free(x);
  free(all);
  free(yb);
  free(g);
  free(y);
}

/* Ghost cells from the ring neighbours, on the host: g[0] = left's last,
 * g[n + 1] = right's first. */
static void ghosts(const double *x, double *g, int n) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int i = 0; i < n; i++)
    g[i + 1] = x[i];
  MPI_Sendrecv(&g[n], 1, MPI_DOUBLE, right, 0, &g[0], 1, MPI_DOUBLE, left, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&g[1], 1, MPI_DOUBLE, left, 1, &g[n + 1], 1, MPI_DOUBLE, right,
               1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* v = g[i] - 2 g[i+1] + g[i+2] + g[i+1]^2; the dot-product test with
 * J du from the formula, summed over ranks. */
static void testHalo(int n, int rank) {
  if (n < 1)
    return;
  size_t m = (size_t)n + 2;
  double *u = malloc(n * sizeof(double)), *du = malloc(n * sizeof(double)),
         *vb = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double)),
         *ub = malloc(n * sizeof(double)), *g = malloc(m * sizeof(double)),
         *dg = malloc(m * sizeof(double));
  for (int i = 0; i < n; i++) {
    u[i] = cos(0.7 * i + 1.3 * rank);
    du[i] = sin(0.4 * i + rank);
    vb[i] = cos(0.9 * i - rank);
  }
  ghosts(u, g, n);
  ghosts(du, dg, n);
  double *d_u = dev(u, n), *d_v = dev(u, n), *d_ub = dev(u, n),
         *d_vb = dev(vb, n);
  cudaMemset(d_ub, 0, n * sizeof(double));
  halo(d_u, d_v, n, MPI_COMM_WORLD);
  host(v, d_v, n);
  double lhs = 0, rhs = 0;
  for (int i = 0; i < n; i++) {
    check("halo value", n, v[i],
          g[i] - 2.0 * g[i + 1] + g[i + 2] + g[i + 1] * g[i + 1], 1e-14);
    lhs += (dg[i] - 2.0 * dg[i + 1] + dg[i + 2] + 2 * g[i + 1] * dg[i + 1]) *
           vb[i];
  }
  halo_b(d_u, d_ub, d_v, d_vb, n, MPI_COMM_WORLD);
  host(ub, d_ub, n);
  for (int i = 0; i < n; i++)
    rhs += du[i] * ub[i];
  check("halo dot-product test", n, sumAll(rhs), sumAll(lhs), 1e-12);
  cudaFree(d_u);
  cudaFree(d_v);
  cudaFree(d_ub);
  cudaFree(d_vb);
  free(u);
  free(du);
  free(vb);
  free(v);
  free(ub);
  free(g);
  free(dg);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int sizes[] = {0, 1, 2, 3, 255, 256, 257, 1000, 100003};
  for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    testLoss(sizes[k], rank);
    testSmooth(sizes[k], rank);
    testEnergy(sizes[k], rank);
    testDot(sizes[k], rank);
    testProd(sizes[k], rank, size);
    testHalo(sizes[k], rank);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(total ? "FAILED %d checks\n" : "ALL PASSED\n", total);
  MPI_Finalize();
  return total != 0;
}
