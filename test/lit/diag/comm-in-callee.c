// Communication in a called function is differentiated by inlining the
// function into its caller (tool/lib/Inline.cpp). A helper that returns
// before its last statement cannot be inlined: a located error at the call,
// and no output file.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: keep
#include <mpi.h>

double gsum(double v, MPI_Comm comm) {
  double s = 0.0;
  if (v == 0.0)
    return 0.0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}

#pragma mpiad differentiate wrt(x)
double f(const double *x, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  // CHECK: comm-in-callee.c:[[@LINE+1]]:14: error: 'gsum' communicates values that carry derivatives and cannot be inlined into its caller: mpiad differentiates communication in a helper by inlining it, which needs its only 'return' to be its last statement and no recursion
  double g = gsum(s, comm);
  return s * g;
}
