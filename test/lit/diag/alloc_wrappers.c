// Allocation wrappers (tool/lib/Realloc.cpp): `p = xrealloc(p, n)` is the
// wrapper's realloc and check (exec/alloc_wrappers.c); the errors of
// realloc itself are then reported at the call, and a realloc wrapper used
// otherwise is an error.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void *xrealloc(void *old, size_t bytes) {
  void *p = realloc(old, bytes);
  if (!p) {
    perror("xrealloc");
    exit(1);
  }
  return p;
}

// The block of a parameter: its size is unknown.
#pragma mpiad differentiate wrt(x) varying(x)
double a(double *x, int n) {
// CHECK: alloc_wrappers.c:[[@LINE+1]]:5: error: 'realloc' of 'x', a parameter: the adjoint cannot know how large its block is; malloc a local buffer, copy the values into it and realloc that
  x = xrealloc(x, 2 * n * sizeof(double));
  x[n] = x[0] * x[0];
  return x[n];
}

// The result thrown away.
#pragma mpiad differentiate wrt(x) varying(x)
double b(const double *x, int n) {
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
// CHECK: alloc_wrappers.c:[[@LINE+1]]:3: error: 'xrealloc' reallocates its argument: in a differentiated function, assign its result to a pointer (`p = xrealloc(p, n);`), with arguments that have no side effects
  xrealloc(t, 2 * n * sizeof(double));
  double s = t[0];
  free(t);
  return s;
}
