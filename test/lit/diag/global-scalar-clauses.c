// A global scalar in wrt(...) counts as each rank's own value: its adjoint
// is this rank's share, which the user must acknowledge with varying(...)
// (a gradient summed over ranks needs a parameter in replicated(...)).
// Without it, and with replicated(...), each is a located error.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

double kappa = 0.5, te;

// CHECK: global-scalar-clauses.c:[[@LINE+1]]:36: error: 'kappa' in wrt(...) is a global, whose value counts as each rank's own: its adjoint kappa_b is this rank's share; say so with varying(kappa), or, if it is equal on all ranks, pass it as a parameter and list it in replicated(...)
#pragma mpiad differentiate wrt(x, kappa) output(te) varying(x)
void f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += kappa * x[i];
  MPI_Allreduce(&s, &te, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

// CHECK: global-scalar-clauses.c:[[@LINE+1]]:69: error: 'kappa' is a global, whose value counts as each rank's own (varying); replicated(...) names parameters
#pragma mpiad differentiate wrt(x) output(te) varying(x) replicated(kappa)
void g(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += kappa * x[i];
  MPI_Allreduce(&s, &te, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
