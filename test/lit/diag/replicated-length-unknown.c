// A replicated array whose length cannot be inferred from its uses.
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

#pragma mpiad differentiate wrt(theta) replicated(theta)
// CHECK: {{.*}}replicated-length-unknown.c:[[@LINE+1]]:24: error: cannot infer the length of replicated array 'theta' (from 'theta[i % 3]'); write replicated(theta[LENGTH]) in the pragma
double f(const double *theta, const double *x, int n, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++)
    local += theta[i % 3] * x[i];
  double s;
  MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}
