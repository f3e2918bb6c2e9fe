/* Host side of the NCCL tests of the CUDA target (cuda/nccl-emulated.c,
 * cuda/nccl-compile.c): the generated GPU functions of Inputs/nccl_kernels.c
 * called on device data, on a CUDA stream of their own, and each gradient
 * checked against central differences of the GPU primal, the tangent against
 * the gradient (the dot-product test), and the values of the MAX/MIN adjoints
 * at ties against the rule (the lowest rank holding the extreme gets it).
 * Expected numbers come from this file's own arithmetic, never from the
 * tool's output. */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t mpiad_gpu_nccl_record_count(void);

typedef double (*prim_t)(const double *, int, MPI_Comm, cudaStream_t);
typedef double (*rev_t)(const double *, double *, int, MPI_Comm, cudaStream_t,
                        double);
typedef double (*tan_t)(const double *, double *, int, MPI_Comm, cudaStream_t,
                        double *);

#define DECLARE(f)                                                             \
  double f(const double *x, int n, MPI_Comm comm, cudaStream_t st);            \
  double f##_b(const double *x, double *x_b, int n, MPI_Comm comm,             \
               cudaStream_t st, double f##_bar);                               \
  double f##_d(const double *x, double *x_d, int n, MPI_Comm comm,             \
               cudaStream_t st, double *f##_dot)
DECLARE(ar_sum);
DECLARE(ar_prod);
DECLARE(ar_max);
DECLARE(ar_min);
DECLARE(ar_avg);
DECLARE(bcast);
DECLARE(red_prod);
DECLARE(gather);
DECLARE(scatter);
DECLARE(bcast_inplace);
DECLARE(ring);

#define DECLARE_NC(f)                                                          \
  double f(const double *x, int n, ncclComm_t nc, MPI_Comm comm,               \
           cudaStream_t st);                                                   \
  double f##_b(const double *x, double *x_b, int n, ncclComm_t nc,             \
               MPI_Comm comm, cudaStream_t st, double f##_bar);                \
  double f##_d(const double *x, double *x_d, int n, ncclComm_t nc,             \
               MPI_Comm comm, cudaStream_t st, double *f##_dot)
DECLARE_NC(ar_sum_nc);
DECLARE_NC(gather_nc);

static int failures, rank, size;
static cudaStream_t stream;
static ncclComm_t world_nc;

static void check(const char *what, const char *fn, int n, double got,
                  double want, double rtol) {
  double err = fabs(got - want) / fmax(1.0, fabs(want));
  if (!(err <= rtol)) {
    printf("FAIL %s %s n=%d rank %d: got %.17g want %.17g (rel %.3g)\n", fn,
           what, n, rank, got, want, err);
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
  cudaStreamSynchronize(stream);
  if (n > 0)
    cudaMemcpy(h, d, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost);
}

static double sumAll(double v) {
  double t;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

/* One function, in the three forms, with or without an NCCL communicator
 * argument. */
typedef struct {
  const char *name;
  prim_t f;
  rev_t f_b;
  tan_t f_d;
  double (*fn)(const double *, int, ncclComm_t, MPI_Comm, cudaStream_t);
  double (*fn_b)(const double *, double *, int, ncclComm_t, MPI_Comm,
                 cudaStream_t, double);
  double (*fn_d)(const double *, double *, int, ncclComm_t, MPI_Comm,
                 cudaStream_t, double *);
  int blocks; /* x holds blocks * n values (size for ReduceScatter) */
} fun;

static double call(const fun *F, const double *x, int n) {
  return F->f ? F->f(x, n, MPI_COMM_WORLD, stream)
              : F->fn(x, n, world_nc, MPI_COMM_WORLD, stream);
}
static double call_b(const fun *F, const double *x, double *x_b, int n,
                     double seed) {
  return F->f ? F->f_b(x, x_b, n, MPI_COMM_WORLD, stream, seed)
              : F->fn_b(x, x_b, n, world_nc, MPI_COMM_WORLD, stream, seed);
}
static double call_d(const fun *F, const double *x, double *x_d, int n,
                     double *dot) {
  return F->f ? F->f_d(x, x_d, n, MPI_COMM_WORLD, stream, dot)
              : F->fn_d(x, x_d, n, world_nc, MPI_COMM_WORLD, stream, dot);
}

/* x: values near 1, different on every rank (no ties); zeros for the
 * product: element 1 on rank 0, element 2 on ranks 0 and 1. */
static void data(const char *name, double *x, int m) {
  int prod = strstr(name, "prod") != NULL;
  for (int i = 0; i < m; i++) {
    x[i] = prod ? 0.9 + 0.2 * sin(1.0 + i + 7.0 * rank)
                : 0.5 + 0.3 * sin(1.0 + i + 7.0 * rank);
    if (prod && m > 2 && ((i == 1 && rank == 0) || (i == 2 && rank <= 1)))
      x[i] = 0.0;
  }
}

static void testFun(const fun *F, int n) {
  int m = F->blocks * n;
  double *x = malloc((size_t)m * sizeof(double) + 8),
         *v = malloc((size_t)m * sizeof(double) + 8),
         *g = malloc((size_t)m * sizeof(double) + 8),
         *xp = malloc((size_t)m * sizeof(double) + 8),
         *xm = malloc((size_t)m * sizeof(double) + 8);
  data(F->name, x, m);
  for (int i = 0; i < m; i++)
    v[i] = cos(0.3 + 1.7 * i + 2.9 * rank);
  /* x_b starts at x: the adjoint is ADDED to it (x_b - x below) */
  double *dx = dev(x, m), *dxb = dev(x, m), *dxd = dev(v, m);
  double J = call(F, dx, n);
  double seed = 1.25;
  double Jb = call_b(F, dx, dxb, n, seed);
  check("adjoint's value", F->name, n, Jb, J, 1e-14);
  check("records left", F->name, n, (double)mpiad_gpu_nccl_record_count(), 0,
        0);
  host(g, dxb, m);
  double gv = 0;
  for (int i = 0; i < m; i++)
    gv += (g[i] - x[i]) / seed * v[i];
  gv = sumAll(gv);
  /* central differences of the GPU primal along v */
  double h = 1e-6;
  for (int i = 0; i < m; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  double *dp = dev(xp, m), *dm = dev(xm, m);
  double fp = call(F, dp, n), fm = call(F, dm, n);
  check("gradient vs central differences", F->name, n, gv,
        (fp - fm) / (2 * h), 1e-6);
  /* the dot-product test: the tangent along v is the gradient times v */
  double Jdot = 0;
  double Jd = call_d(F, dx, dxd, n, &Jdot);
  check("tangent's value", F->name, n, Jd, J, 1e-14);
  check("tangent vs adjoint (dot-product test)", F->name, n, Jdot, gv, 1e-12);
  cudaFree(dx);
  cudaFree(dxb);
  cudaFree(dxd);
  cudaFree(dp);
  cudaFree(dm);
  free(x);
  free(v);
  free(g);
  free(xp);
  free(xm);
}

/* MAX and MIN with every rank holding the same x: the adjoint goes to rank 0
 * only (the lowest rank holding the extreme), with dJ/dy = 2 (1 + i/8) y. */
static void testTies(const fun *F, int n) {
  double *x = malloc((size_t)n * sizeof(double) + 8),
         *g = malloc((size_t)n * sizeof(double) + 8);
  for (int i = 0; i < n; i++)
    x[i] = 0.25 + 0.5 * i;
  double *dx = dev(x, n), *dxb = dev(x, n);
  cudaMemset(dxb, 0, (size_t)(n > 0 ? n : 1) * sizeof(double));
  call_b(F, dx, dxb, n, 1.0);
  host(g, dxb, n);
  for (int i = 0; i < n; i++)
    check("adjoint at a tie", F->name, n, g[i],
          rank == 0 ? 2.0 * (1.0 + i / 8.0) * x[i] : 0.0, 1e-14);
  cudaFree(dx);
  cudaFree(dxb);
  free(x);
  free(g);
}

/* Float data (ncclFloat, ncclFloat32): the product with zeros and the
 * maximum over ranks, in one function (two records, reversed in LIFO
 * order).  The primal runs in float: central differences with a larger step
 * and a looser tolerance. */
double ar_prod_max_f(const float *x, int n, MPI_Comm comm, cudaStream_t st);
double ar_prod_max_f_b(const float *x, float *x_b, int n, MPI_Comm comm,
                       cudaStream_t st, double ar_prod_max_f_bar);
double ar_prod_max_f_d(const float *x, float *x_d, int n, MPI_Comm comm,
                       cudaStream_t st, double *ar_prod_max_f_dot);

static float *devf(const float *h, int n) {
  float *d = NULL;
  if (cudaMalloc((void **)&d, (size_t)(n > 0 ? n : 1) * sizeof(float)) !=
      cudaSuccess) {
    printf("FAIL cudaMalloc\n");
    exit(1);
  }
  if (n > 0)
    cudaMemcpy(d, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
  return d;
}

static void testFloat(int n) {
  const char *fn = "ar_prod_max_f";
  float *x = malloc((size_t)n * sizeof(float) + 8),
        *v = malloc((size_t)n * sizeof(float) + 8),
        *g = malloc((size_t)n * sizeof(float) + 8),
        *xp = malloc((size_t)n * sizeof(float) + 8),
        *xm = malloc((size_t)n * sizeof(float) + 8);
  for (int i = 0; i < n; i++) {
    x[i] = (float)(0.9 + 0.2 * sin(1.0 + i + 7.0 * rank));
    if (n > 2 && ((i == 1 && rank == 0) || (i == 2 && rank <= 1)))
      x[i] = 0.0f;
    v[i] = (float)cos(0.3 + 1.7 * i + 2.9 * rank);
  }
  float *dx = devf(x, n), *dxb = devf(x, n), *dxd = devf(v, n);
  double J = ar_prod_max_f(dx, n, MPI_COMM_WORLD, stream);
  double Jb = ar_prod_max_f_b(dx, dxb, n, MPI_COMM_WORLD, stream, 1.0);
  check("adjoint's value", fn, n, Jb, J, 1e-12);
  check("records left", fn, n, (double)mpiad_gpu_nccl_record_count(), 0, 0);
  cudaStreamSynchronize(stream);
  cudaMemcpy(g, dxb, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
  double gv = 0;
  for (int i = 0; i < n; i++)
    gv += ((double)g[i] - x[i]) * v[i];
  gv = sumAll(gv);
  float h = 1e-3f;
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  float *dp = devf(xp, n), *dm = devf(xm, n);
  double fp = ar_prod_max_f(dp, n, MPI_COMM_WORLD, stream),
         fm = ar_prod_max_f(dm, n, MPI_COMM_WORLD, stream);
  check("gradient vs central differences", fn, n, gv, (fp - fm) / (2 * h),
        5e-3);
  double Jdot = 0;
  double Jd = ar_prod_max_f_d(dx, dxd, n, MPI_COMM_WORLD, stream, &Jdot);
  check("tangent's value", fn, n, Jd, J, 1e-12);
  check("tangent vs adjoint (dot-product test)", fn, n, Jdot, gv, 1e-5);
  cudaFree(dx);
  cudaFree(dxb);
  cudaFree(dxd);
  cudaFree(dp);
  cudaFree(dm);
  free(x);
  free(v);
  free(g);
  free(xp);
  free(xm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (cudaStreamCreate(&stream) != cudaSuccess) {
    printf("FAIL cudaStreamCreate\n");
    return 1;
  }
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (ncclCommInitRank(&world_nc, size, id, rank) != ncclSuccess) {
    printf("FAIL ncclCommInitRank\n");
    return 1;
  }
#define F(f, b) {#f, f, f##_b, f##_d, NULL, NULL, NULL, b}
#define FNC(f) {#f, NULL, NULL, NULL, f, f##_b, f##_d, 1}
  const fun funs[] = {F(ar_sum, 1), F(ar_prod, 1),   F(ar_max, 1),
                      F(ar_min, 1), F(ar_avg, 1),    F(bcast, 1),
                      F(red_prod, 1), F(gather, 1),  F(scatter, size),
                      F(bcast_inplace, 1), F(ring, 1),
                      FNC(ar_sum_nc), FNC(gather_nc)};
  const int ns[] = {1, 5, 9};
  for (size_t k = 0; k < sizeof funs / sizeof funs[0]; ++k)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
      testFun(&funs[k], ns[j]);
  testTies(&funs[2], 5);
  testTies(&funs[3], 5);
  for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
    testFloat(ns[j]);
  ncclCommDestroy(world_nc);
  cudaStreamDestroy(stream);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(all ? "%d FAILURES\n" : "ALL PASSED (%d ranks)\n", all ? all : size);
  MPI_Finalize();
  return all != 0;
}
