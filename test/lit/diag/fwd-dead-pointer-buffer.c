// Forward mode: a collective whose result buffer is a pointer that carries
// no derivative, beside a sent value that does.  The tangent MPI call needs a
// real buffer on every rank and the pointer's extent is unknown, so this is a
// located error (it used to pass NULL and crash at run time).
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

#include <mpi.h>

#pragma mpiad differentiate forward wrt(x)
double f(const double *x, double *scratch, MPI_Comm comm) {
  double a = x[0] * x[0];
  // CHECK: {{.*}}fwd-dead-pointer-buffer.c:[[@LINE+1]]:21: error: buffer 'scratch' of MPI_Allreduce carries no derivative, but the call's other buffers do, and its size is unknown here; use a local array, or make it carry a derivative
  MPI_Allreduce(&a, scratch, 1, MPI_DOUBLE, MPI_SUM, comm);
  return a;
}
