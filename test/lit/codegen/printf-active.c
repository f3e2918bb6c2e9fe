// Printing a value that carries derivatives is fine: the call's result is
// discarded and it reads its arguments by value, so it is kept in the forward
// sweep and has no adjoint.  Passing a pointer to such data to an external
// function is refused (the function could write through it).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// RUN: not %mpiad-emit -DPOINTER %s -o %t.out 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK:      /* forward sweep */
// CHECK:      printf("s = %g\n", s);
// CHECK:      /* reverse sweep */
// CHECK-NOT:  {{^}}  printf
// CHECK:      return mpiad_ret;
// ERR: printf-active.c:[[# @LINE + 14]]:3: error: external function 'record' is passed the data of
#include <stdio.h>

void record(double *p);

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  printf("s = %g\n", s);
#ifdef POINTER
  double t[1];
  t[0] = s;
  record(t);
#endif
  return s;
}
