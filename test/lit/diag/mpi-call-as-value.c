// An MPI call used as a value is lowered where it runs once, in full (the
// call, then MPI_SUCCESS: exec/mpi_values_lowered.c); inside an operand of
// &&, || or ?: it may not run, and that stays an error.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
#include <mpi.h>

#pragma mpiad differentiate wrt(x)
double f(double x, int k) {
  int r = 0;
  // CHECK: {{.*}}mpi-call-as-value.c:[[@LINE+1]]:16: error: 'MPI_Comm_rank' used as a value inside an operand of &&, || or ?:; call it as a statement (its return code is MPI_SUCCESS here) in a differentiated function
  if (k > 0 && MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS)
    return 0.0;
  return x * r;
}
