// A global pointer gets a shadow only when the file shows that it points
// to memory of its own (exec/global_heap_state.c): every assignment of it
// allocates, with one size written with names of the file, and its address
// is never taken.  Each other case is a located error that says which
// assignment breaks it; so are the clauses a global cannot be in, and an
// input that is overwritten but not an output.  (Forward mode gives such a
// global a tangent: exec/global_heap_state.c.)
//
// RUN: not %mpiad-emit -DCASE=1 %s -o %t.c 2>&1 | FileCheck --check-prefix=C1 %s --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=2 %s -o %t.c 2>&1 | FileCheck --check-prefix=C2 %s --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=3 %s -o %t.c 2>&1 | FileCheck --check-prefix=C3 %s --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=4 %s -o %t.c 2>&1 | FileCheck --check-prefix=C4 %s --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=5 %s -o %t.c 2>&1 | FileCheck --check-prefix=C5 %s --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=6 %s -o %t.c 2>&1 | FileCheck --check-prefix=C6 %s --implicit-check-not error:
#include <stdlib.h>

double *u;
int n;

void init(int m, double *given) {
  n = m;
  u = malloc(n * sizeof(double));
#if CASE == 1
  u = given; /* points into the caller's array */
#elif CASE == 2
  u = malloc(2 * n * sizeof(double));
#elif CASE == 3
  double **where = &u;
  *where = NULL;
#elif CASE == 4
  int local = m;
  u = calloc(local, sizeof(double));
#endif
  (void)given;
}

#if CASE <= 4
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x) {
  // C1: global-pointer-owned.c:[[@LINE+4]]:3: error: global pointer 'u' would carry derivatives; {{.*}} (here it is assigned 'given', not an allocation (malloc, calloc or aligned_alloc)); else pass it as a parameter
  // C2: global-pointer-owned.c:[[@LINE+3]]:3: error: global pointer 'u' would carry derivatives; {{.*}} (here it is allocated with two sizes ('(n * sizeof(double))' and '(2 * n * sizeof(double))')); else pass it as a parameter
  // C3: global-pointer-owned.c:[[@LINE+2]]:3: error: global pointer 'u' would carry derivatives; {{.*}} (here its address is taken); else pass it as a parameter
  // C4: global-pointer-owned.c:[[@LINE+1]]:3: error: global pointer 'u' would carry derivatives; {{.*}} (here its size 'local' reads variables of the function that allocates it); else pass it as a parameter
  u[0] = x[0] * x[0];
  return u[0] * x[1];
}
#elif CASE == 5
// C5: global-pointer-owned.c:[[@LINE+1]]:57: error: 'u' is a global, whose value counts as each rank's own (varying); replicated(...) names parameters
#pragma mpiad differentiate wrt(u) output(u) replicated(u)
void g(void) {
  for (int i = 0; i < n; i++)
    u[i] = u[i] * u[i];
}
#elif CASE == 6
#pragma mpiad differentiate wrt(u) varying(u)
double h(void) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    // C6: global-pointer-owned.c:[[@LINE+1]]:10: error: wrt global pointer 'u' is overwritten here; list it in output(...) as well (updated in place)
    u[i] = u[i] * u[i];
    s += u[i];
  }
  return s;
}
#endif
