// A global pointer's data has no shadow.  Two ways it could still meet
// values that depend on the inputs, each a located error now:
//  - a local copy of it written with such values (`double *u = gbuf;`):
//    the generated code gave the global a file-scope shadow pointer, set it
//    to NULL and wrote through it (a crash);
//  - a read through it in a function that has such an array (`work`, or
//    the wrt array `x`): it may point there, and the read was a constant
//    (a zero gradient, silently).
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

double *gbuf;

#pragma mpiad differentiate wrt(theta) replicated(theta, n)
double copied(double theta, int n, MPI_Comm comm) {
  // CHECK: global-pointer-alias.c:[[@LINE+1]]:15: error: global pointer 'gbuf' would carry derivatives; mpiad gives a global pointer a shadow only when every assignment of it in this file allocates it, with one size written with names of the file, and its address is never taken (here this file never allocates it); else pass it as a parameter
  double *u = gbuf;
  for (int i = 0; i < n; i++)
    u[i] = theta * (i + 1);
  double r = 0.0, t;
  for (int i = 0; i < n; i++)
    r += u[i] * u[i];
  MPI_Allreduce(&r, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double aliased(const double *x, double *work, int n, MPI_Comm comm) {
  for (int i = 0; i < n; i++)
    work[i] = x[i] * x[i];
  double r = 0.0, t;
  for (int i = 0; i < n; i++)
    // CHECK: global-pointer-alias.c:[[@LINE+1]]:10: error: floating-point data read through the global pointer 'gbuf' counts as a constant, which is wrong if it points into 'x' or another array whose values depend on the inputs; pass the array as a parameter and use it there, or, if it is constant data, copy it into a global array of fixed size
    r += gbuf[i];
  MPI_Allreduce(&r, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
