/*
 * vmath.c - unit test of the vector math over the replica axis: every
 * function at every length from 0 to 13 (whole vectors and the remainder)
 * and at 1000, against libm, on arguments across each function's domain;
 * two slots live at once.  Registered once per MPIAD_VECTOR_MATH path
 * (avx2, sse, libm); the libm path must be bitwise libm's.
 */
#include "mpiad.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef const double *(*vec_fn)(const double *, long, int);

static const struct {
  const char *name;
  vec_fn vec;
  double (*ref)(double);
  double lo, hi; /* argument range */
} fns[] = {
    {"tanh", mpiad_vec_tanh, tanh, -20.0, 20.0},
    {"exp", mpiad_vec_exp, exp, -700.0, 700.0},
    {"log", mpiad_vec_log, log, 1e-300, 1e300},
    {"sin", mpiad_vec_sin, sin, -100.0, 100.0},
    {"cos", mpiad_vec_cos, cos, -100.0, 100.0},
};

/* Arguments spread over [lo, hi] (geometrically for log), small ones too. */
static void arguments(double *x, long n, double lo, double hi, int geometric) {
  for (long i = 0; i < n; ++i) {
    double t = n > 1 ? (double)i / (double)(n - 1) : 0.5;
    x[i] = geometric ? exp(log(lo) + t * (log(hi) - log(lo)))
                     : lo + t * (hi - lo);
    if (!geometric && i % 3 == 1)
      x[i] *= 1e-3; /* near zero */
  }
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  const char *path = getenv("MPIAD_VECTOR_MATH");
  int exact = path && !strcmp(path, "libm");
  enum { MAXN = 1000 };
  static double x[MAXN], x2[MAXN];
  const long lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, MAXN};
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; ++f)
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; ++k) {
      long n = lengths[k];
      int geometric = !strcmp(fns[f].name, "log");
      arguments(x, n, fns[f].lo, fns[f].hi, geometric);
      arguments(x2, n, fns[f].lo / 2, fns[f].hi / 2, geometric);
      const double *y = fns[f].vec(x, n, 0);
      const double *y2 = fns[f].vec(x2, n, 1); /* slot 0 stays valid */
      long bad = 0;
      for (long i = 0; i < n; ++i)
        for (int which = 0; which < 2; ++which) {
          double a = which ? x2[i] : x[i];
          double got = which ? y2[i] : y[i], want = fns[f].ref(a);
          double tol = exact ? 0.0 : 9e-16 * fabs(want) + 1e-300; /* 4 ulp */
          /* sin and cos near their zeros: 4 ulp of the argument's scale */
          if (!exact && (!strcmp(fns[f].name, "sin") ||
                         !strcmp(fns[f].name, "cos")))
            tol += 9e-16;
          if (!(fabs(got - want) <= tol)) {
            if (bad < 3)
              fprintf(stderr, "%s(%.17g): got %.17g want %.17g\n",
                      fns[f].name, a, got, want);
            bad++;
          }
        }
      RT_CHECK(bad == 0, "%s, n = %ld: %ld values off", fns[f].name, n, bad);
    }
  return rt_finish("runtime.vmath");
}
