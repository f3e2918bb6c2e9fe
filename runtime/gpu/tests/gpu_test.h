/*
 * gpu_test.h - helpers of the libmpiad_gpu unit tests: start-up with the
 * device probe (exit code 77 = skipped without a CUDA device), device
 * buffers from host vectors and back, comparisons that print the numbers,
 * and the communicators on both paths.
 *
 * Expected values are always computed on the host from the formulas of the
 * test data, never by the library.
 */
#ifndef MPIAD_GPU_TEST_H
#define MPIAD_GPU_TEST_H

#include "mpiad_gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

static int t_rank, t_size;
static int t_fail;  /* failed checks on this rank */
static int t_count; /* checks made on this rank */

/* Aborts the whole job if a runtime call fails: a failing rank would leave
 * its peers waiting in the next collective. */
#define T_OK(call)                                                             \
  do {                                                                         \
    mpiad_result_t t_ok_r_ = (call);                                           \
    if (t_ok_r_ != MPIAD_SUCCESS) {                                            \
      fprintf(stderr, "rank %d: %s:%d: %s returned %s: %s\n", t_rank,          \
              __FILE__, __LINE__, #call, mpiad_result_string(t_ok_r_),         \
              mpiad_gpu_last_error());                                         \
      fflush(stderr);                                                          \
      MPI_Abort(MPI_COMM_WORLD, 2);                                            \
    }                                                                          \
  } while (0)

/* MPI_Init, then the probe: without a usable CUDA device on every rank,
 * prints "no CUDA device: skipped", finalizes and returns 77 (the caller
 * returns it from main).  Otherwise selects device (node-local rank) modulo
 * (number of devices) and returns 0. */
static inline int gpu_test_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  int have = e == cudaSuccess && ndev > 0, all = 0;
  (void)cudaGetLastError();
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (t_rank == 0)
      printf("no CUDA device: skipped\n");
    MPI_Finalize();
    return 77;
  }
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t_rank,
                      MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  MPIAD_GPU_CHECK(cudaSetDevice(local % ndev));
  return 0;
}

/* Sums the failures over ranks; rank 0 prints the verdict.  Returns the exit
 * code (0 pass, 1 fail); finalizes MPI. */
static inline int gpu_test_finish(const char *name) {
  int fails = 0, checks = 0;
  MPI_Allreduce(&t_fail, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&t_count, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (t_rank == 0)
    printf("%s: %d ranks, %d checks, %d failed: %s\n", name, t_size, checks,
           fails, fails ? "FAIL" : "PASS");
  MPI_Finalize();
  return fails ? 1 : 0;
}

/* ------------------------------------------------------------------------- */
/* Element types                                                             */
/* ------------------------------------------------------------------------- */

template <class T> struct ty;
template <> struct ty<double> {
  static MPI_Datatype mpi() { return MPI_DOUBLE; }
  static const char *name() { return "f64"; }
  static double tol() { return 1e-12; } /* relative */
};
template <> struct ty<float> {
  static MPI_Datatype mpi() { return MPI_FLOAT; }
  static const char *name() { return "f32"; }
  static double tol() { return 1e-6; } /* float rounding */
};

typedef std::vector<double> vec;

/* A device copy of h, converted to T (at least one element, so that even an
 * empty buffer is a valid, non-NULL pointer). */
template <class T> static inline T *dput(const vec &h) {
  size_t n = h.size() ? h.size() : 1;
  std::vector<T> t(n, T(0));
  for (size_t k = 0; k < h.size(); ++k)
    t[k] = (T)h[k];
  T *d = (T *)mpiad_gpu_malloc(n * sizeof(T));
  MPIAD_GPU_CHECK(
      cudaMemcpy(d, t.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/* The first n elements of device buffer d, as doubles. */
template <class T> static inline vec dget(const T *d, size_t n) {
  std::vector<T> t(n ? n : 1);
  if (n)
    MPIAD_GPU_CHECK(
        cudaMemcpy(t.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  vec h(n);
  for (size_t k = 0; k < n; ++k)
    h[k] = (double)t[k];
  return h;
}

/* Rounds every element to T (the expected value of a float result). */
template <class T> static inline vec rounded(vec v) {
  for (double &x : v)
    x = (double)(T)x;
  return v;
}

/* ------------------------------------------------------------------------- */
/* Checks                                                                    */
/* ------------------------------------------------------------------------- */

/* got[k] == want[k] within tol * max(1, |want[k]|); prints the first few
 * mismatches with their numbers. */
static inline void expect_near(const char *what, const vec &got,
                               const vec &want, double tol) {
  t_count++;
  int bad = 0;
  if (got.size() != want.size()) {
    fprintf(stderr, "rank %d: %s: %zu elements, want %zu\n", t_rank, what,
            got.size(), want.size());
    t_fail++;
    return;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    double err = fabs(got[k] - want[k]);
    if (!(err <= tol * fmax(1.0, fabs(want[k])))) {
      if (bad < 5)
        fprintf(stderr, "rank %d: %s[%zu] = %.17g, want %.17g\n", t_rank, what,
                k, got[k], want[k]);
      bad++;
    }
  }
  if (bad) {
    fprintf(stderr, "rank %d: %s: %d of %zu elements wrong: FAIL\n", t_rank,
            what, bad, got.size());
    t_fail++;
  }
}

static inline void expect_true(const char *what, int ok) {
  t_count++;
  if (!ok) {
    fprintf(stderr, "rank %d: %s: FAIL\n", t_rank, what);
    t_fail++;
  }
}

static inline void expect_int(const char *what, long got, long want) {
  t_count++;
  if (got != want) {
    fprintf(stderr, "rank %d: %s = %ld, want %ld: FAIL\n", t_rank, what, got,
            want);
    t_fail++;
  }
}

/* Two global numbers (the same on every rank) agree to tol relative. */
static inline void expect_dot(const char *what, double lhs, double rhs,
                              double tol) {
  t_count++;
  double scale = fmax(fabs(lhs), fabs(rhs));
  double rel = scale > 0 ? fabs(lhs - rhs) / scale : 0.0;
  if (!(rel <= tol)) {
    if (t_rank == 0)
      fprintf(stderr,
              "%s: <J dx, y_b> = %.17g, <dx, J^T y_b> = %.17g, "
              "relerr %.3e: FAIL\n",
              what, lhs, rhs, rel);
    t_fail++;
  }
}

static inline double dot(const vec &a, const vec &b) {
  double s = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k)
    s += a[k] * b[k];
  return s;
}

static inline double gsum(double v, MPI_Comm c) {
  double s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, c);
  return s;
}

/* ------------------------------------------------------------------------- */
/* Test data (exact binary fractions, so most results are exact)             */
/* ------------------------------------------------------------------------- */

/* General values, negative ones included. */
static inline double val(int r, int k) {
  return 1.0 + 0.25 * r + 0.125 * (k % 7) - 0.5 * (k % 3);
}

/* PROD inputs: element 5j has one zero (last rank), 5j+1 two zeros (ranks 0
 * and last, when there are two ranks), the others in [1, 1.375]. */
static inline double pval(int r, int k, int size) {
  if (k % 5 == 0 && r == size - 1)
    return 0.0;
  if (k % 5 == 1 && size > 1 && (r == 0 || r == size - 1))
    return 0.0;
  return 1.0 + 0.125 * ((r + k) % 4);
}

/* MAX/MIN inputs with ties: all equal, increasing, decreasing, equal on the
 * odd ranks. */
static inline double mval(int r, int k) {
  switch (k % 4) {
  case 0:
    return 2.0;
  case 1:
    return 0.5 * r;
  case 2:
    return -0.5 * r;
  default:
    return r % 2 ? 1.0 : 0.5;
  }
}

static inline double input(int op, int r, int k, int size) {
  return op == 1 ? pval(r, k, size) : op >= 2 ? mval(r, k) : val(r, k);
}

static const MPI_Op ops[4] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
static const char *const op_names[4] = {"SUM", "PROD", "MAX", "MIN"};

/* The reduction over ranks of input(op, ., k), in double. */
static inline double reduce_host(int op, int k, int size) {
  double y = input(op, 0, k, size);
  for (int q = 1; q < size; ++q) {
    double v = input(op, q, k, size);
    y = op == 0 ? y + v : op == 1 ? y * v : op == 2 ? fmax(y, v) : fmin(y, v);
  }
  return y;
}

/* ------------------------------------------------------------------------- */
/* Communicators on both paths                                               */
/* ------------------------------------------------------------------------- */

/* A duplicate of MPI_COMM_WORLD whose state is created with
 * MPIAD_GPU_COMM=<path> (the variable is unset again afterwards); returns
 * the path the runtime reports (NULL on failure). */
static inline const char *dup_with_path(const char *path, MPI_Comm *out) {
  MPI_Comm_dup(MPI_COMM_WORLD, out);
  setenv("MPIAD_GPU_COMM", path, 1);
  const char *p = mpiad_gpu_comm_path(*out);
  unsetenv("MPIAD_GPU_COMM");
  return p;
}

/* Shared by the adjoint and tangent tests. */
/* The direction dx and the adjoint seeds y_b, per rank (positive, so that no
 * sum cancels and the float cases stay within float rounding). */
static inline double dxv(int r, int k) {
  return 0.5 + 0.25 * ((3 * r + k) % 5);
}
static inline double ybv(int r, int k) {
  return 0.1 * (r + 1) + 0.01 * k + 0.05;
}

/* d y_k / d x_{r,k} of the reduction op over ranks (see input()). */
static inline double deriv_host(int op, int r, int k, int size) {
  if (op == 0)
    return 1.0;
  if (op == 1) {
    double p = 1.0;
    for (int q = 0; q < size; ++q)
      if (q != r)
        p *= input(1, q, k, size);
    return p;
  }
  double ext = reduce_host(op, k, size);
  for (int q = 0; q < size; ++q)
    if (input(op, q, k, size) == ext)
      return q == r ? 1.0 : 0.0; /* the lowest holder owns it */
  return 0.0;
}

static inline void check_stack_empty(const char *what) {
  char w[300];
  snprintf(w, sizeof w, "%s: record stack empty", what);
  expect_true(w,
              mpiad_gpu_record_count() == 0 && mpiad_gpu_record_bytes() == 0);
}

#endif /* MPIAD_GPU_TEST_H */
