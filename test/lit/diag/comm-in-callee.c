// Communication on values that carry derivatives inside a called function is
// not supported yet: a located error at the call, and no output file.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: keep
#include <mpi.h>

double gsum(double v, MPI_Comm comm) {
  double s = 0.0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

#pragma mpiad differentiate wrt(x)
double f(const double *x, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  // CHECK: comm-in-callee.c:[[@LINE+1]]:14: error: 'gsum' communicates values that carry derivatives; communication inside called functions is not supported yet (call MPI from the marked function)
  double g = gsum(s, comm);
  return s * g;
}
