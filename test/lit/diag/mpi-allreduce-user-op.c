// MPI_Allreduce with a reduction operator that has no adjoint (here a
// user-defined MPI_Op) on values that carry derivatives. The message lists the
// operators that do.
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
double f(double x, MPI_Op op, MPI_Comm comm) {
  double m;
  // CHECK: {{.*}}mpi-allreduce-user-op.c:[[@LINE+1]]:40: error: reduction operator 'op' of MPI_Allreduce is not supported for values that carry derivatives (supported: MPI_SUM{{.*}})
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, op, comm);
  return m;
}
