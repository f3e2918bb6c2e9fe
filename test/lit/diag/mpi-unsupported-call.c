// An MPI call that has no communication rule in rules/ (MPI_Reduce_local).
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// An existing output file is left untouched.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>/dev/null
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: {{^keep$}}
// KEEP-NOT: {{.}}

#include <mpi.h>

#pragma mpiad differentiate wrt(x) replicated(x)
double f(double x) {
  double m = 1.0;
  // CHECK: {{.*}}mpi-unsupported-call.c:[[@LINE+1]]:3: error: 'MPI_Reduce_local' is not supported in a differentiated function yet (no communication rule for it in rules/)
  MPI_Reduce_local(&x, &m, 1, MPI_DOUBLE, MPI_SUM);
  return m;
}
