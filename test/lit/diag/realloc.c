// realloc is differentiated when mpiad knows how large the block is: a
// local assigned only malloc, calloc, realloc or NULL (exec/realloc.c).
// Otherwise it is a located error that says what to write.
//
// RUN: not %mpiad-emit -DPARAM %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAM --implicit-check-not=error:
// RUN: not %mpiad-emit -DCOPY %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPY --implicit-check-not=error:
// RUN: not %mpiad-emit -DREPLICAS %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPLICAS --implicit-check-not=error:
// RUN: not %mpiad-emit -DEXPR %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPR --implicit-check-not=error:
#include <stdlib.h>

#ifdef PARAM
#pragma mpiad differentiate wrt(x) output(x) varying(x)
double f(double *x, int n) {
  // PARAM: realloc.c:[[@LINE+1]]:5: error: 'realloc' of 'x', a parameter: the adjoint cannot know how large its block is; malloc a local buffer, copy the values into it and realloc that
  x = realloc(x, 2 * n * sizeof(double));
  x[n] = x[0] * x[0];
  return x[n];
}
#endif

#ifdef COPY
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double *a = malloc(n * sizeof(double));
  double *b = a;
  for (int i = 0; i < n; i++)
    b[i] = x[i];
  // COPY: realloc.c:[[@LINE+1]]:5: error: 'realloc' of 'b', which is also assigned 'a': the adjoint must know how large its block is, so assign it only malloc, calloc, realloc or NULL
  b = realloc(b, 2 * n * sizeof(double));
  double s = b[0] * b[n - 1];
  free(b);
  return s;
}
#endif

#ifdef EXPR
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double *a = malloc(2 * n * sizeof(double));
  for (int i = 0; i < 2 * n; i++)
    a[i] = x[i % n];
  // EXPR: realloc.c:[[@LINE+1]]:5: error: the pointer given to 'realloc' must be a variable (or NULL) in a differentiated function
  a = realloc(a + 0, n * sizeof(double));
  double s = a[0] * a[n - 1];
  free(a);
  return s;
}
#endif

#ifdef REPLICAS
#pragma mpiad differentiate wrt(w) varying(w) replicas(w)
double f(const double *w, int n) {
  double *a = malloc(sizeof(double));
  a[0] = w[0];
  // REPLICAS: realloc.c:[[@LINE+1]]:5: error: replicas: 'realloc' is not supported with replicas(...): allocate the final size with malloc
  a = realloc(a, n * sizeof(double));
  for (int i = 1; i < n; i++)
    a[i] = a[i - 1] * w[0];
  double s = a[n - 1];
  free(a);
  return s;
}
#endif
