// A float buffer sent as MPI_DOUBLE: MPI reads and writes twice the bytes of s
// and t. The tool knows both types and should say so rather than differentiate.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

#include <mpi.h>

#pragma mpiad differentiate wrt(x)
double f(const float *x, MPI_Comm comm) {
  float s = x[0] * x[0];
  float t;
  // CHECK: mpi-datatype-mismatch.c:[[@LINE+2]]:17: error: buffer 's' holds float but MPI_Allreduce is told MPI_DOUBLE; use MPI_FLOAT
  // CHECK: mpi-datatype-mismatch.c:[[@LINE+1]]:21: error: buffer 't' holds float but MPI_Allreduce is told MPI_DOUBLE; use MPI_FLOAT
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
