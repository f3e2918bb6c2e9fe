/*
 * adjoint_comm_common.h - helpers shared by the adjoint_comm* unit tests:
 * element types (MPI_DOUBLE / MPI_FLOAT), random data, local inner products
 * and the collective adjoint-identity check.
 */
#ifndef MPIAD_ADJOINT_COMM_COMMON_H
#define MPIAD_ADJOINT_COMM_COMMON_H

#include "mpiad.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  MPI_Datatype t;
  int f32;
  size_t esz;
  double tol; /* relative tolerance of an adjoint identity */
  const char *name;
} ty_t;

static ty_t TY[2];

static void ty_init(void) {
  TY[0] = (ty_t){MPI_DOUBLE, 0, sizeof(double), 1e-12, "f64"};
  TY[1] = (ty_t){MPI_FLOAT, 1, sizeof(float), 2e-5, "f32"};
}

static double gv(const ty_t *T, const void *p, size_t k) {
  return T->f32 ? (double)((const float *)p)[k] : ((const double *)p)[k];
}

static void sv(const ty_t *T, void *p, size_t k, double v) {
  if (T->f32)
    ((float *)p)[k] = (float)v;
  else
    ((double *)p)[k] = v;
}

/* Zeroed array of n elements (at least one, so never NULL). */
static void *talloc(const ty_t *T, size_t n) {
  return calloc(n ? n : 1, T->esz);
}

static void *tdup(const ty_t *T, const void *p, size_t n) {
  void *q = talloc(T, n);
  if (n)
    memcpy(q, p, n * T->esz);
  return q;
}

static unsigned long long rng;

static void rseed(unsigned long long s) {
  rng = s * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* Uniform in [-1, 1). */
static double urand(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void tfill(const ty_t *T, void *p, size_t n) {
  for (size_t k = 0; k < n; ++k)
    sv(T, p, k, urand());
}

static double tdot(const ty_t *T, const void *a, const void *b, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; ++k)
    s += gv(T, a, k) * gv(T, b, k);
  return s;
}

static double tadot(const ty_t *T, const void *a, const void *b, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; ++k)
    s += fabs(gv(T, a, k) * gv(T, b, k));
  return s;
}

/* <a - b, x> and sum |(a - b) x|, locally. */
static double tdiffdot(const ty_t *T, const void *a, const void *b,
                       const void *x, size_t n, double *scale) {
  double s = 0;
  for (size_t k = 0; k < n; ++k) {
    double v = (gv(T, a, k) - gv(T, b, k)) * gv(T, x, k);
    s += v;
    *scale += fabs(v);
  }
  return s;
}

static int tallzero(const ty_t *T, const void *p, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (gv(T, p, k) != 0.0)
      return 0;
  return 1;
}

/* Sums lhs, rhs and scale over MPI_COMM_WORLD and checks
 * |lhs - rhs| <= tol * scale. */
static void check_ident(const char *label, double lhs, double rhs, double scale,
                        double tol) {
  double v[3] = {lhs, rhs, scale}, s[3];
  PMPI_Allreduce(v, s, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  RT_CHECK(fabs(s[0] - s[1]) <= tol * s[2],
           "%s: <y_b, A x> = %.17g, <A^T y_b, x> = %.17g (scale %.3g)", label,
           s[0], s[1], s[2]);
}

#define RT_OK(call, label)                                                     \
  do {                                                                         \
    mpiad_result_t r_ = (call);                                                \
    RT_CHECK(r_ == MPIAD_SUCCESS, "%s: %s", label, mpiad_result_string(r_));   \
  } while (0)

#endif /* MPIAD_ADJOINT_COMM_COMMON_H */
