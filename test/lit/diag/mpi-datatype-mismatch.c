// A float buffer sent as MPI_DOUBLE: MPI reads and writes twice the bytes of s
// and t. The tool knows both types and should say so rather than differentiate.
// XFAIL: *
// Known tool bug (reported to the lead): accepted silently.
// Remove the XFAIL line when it is fixed (and pin the exact column and wording).
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

#include <mpi.h>

#pragma mpiad differentiate wrt(x)
double f(const float *x, MPI_Comm comm) {
  float s = x[0] * x[0];
  float t;
  // CHECK: {{.*}}mpi-datatype-mismatch.c:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}MPI_DOUBLE{{.*}}float
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
