// An integer MPI datatype on a buffer that carries derivatives.
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

#pragma mpiad differentiate wrt(x)
double f(double x, MPI_Comm comm) {
  double s = x * x, t;
  // CHECK: {{.*}}mpi-int-datatype.c:[[@LINE+1]]:28: error: datatype 'MPI_INT' of MPI_Allreduce cannot carry derivatives; use MPI_DOUBLE or MPI_FLOAT
  MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, comm);
  return t;
}
