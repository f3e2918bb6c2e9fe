// A pointer that carries derivatives, assigned the pointer a same-file
// function returns, when that function is more than an allocation wrapper
// (`return malloc(...)`, which gets a shadow like malloc, see
// exec/callee_alloc.c, also with a NULL test that ends the program, see
// exec/alloc_wrappers.c): here it also fills the block, so the pointer would
// have no shadow, and it is an error.
// RUN: rm -f %t.c
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.c
#include <stdlib.h>

static double *alloc_checked(int n) {
  double *p = malloc(n * sizeof(double));
  if (!p)
    abort();
  for (int i = 0; i < n; i++)
    p[i] = 0.0;
  return p;
}

#pragma mpiad differentiate wrt(x) replicated(x, n)
double f(const double *x, int n) {
  // CHECK: callee-returns-pointer.c:[[@LINE+1]]:11: error: pointer 't' carries derivatives but is assigned the pointer that 'alloc_checked' returns, which has no shadow; allocate it here with malloc/calloc, or make 'alloc_checked' only return malloc(...) or calloc(...) of its scalar parameters
  double *t = alloc_checked(n);
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    t[i] = x[i] * x[i];
    s += t[i];
  }
  free(t);
  return s;
}
