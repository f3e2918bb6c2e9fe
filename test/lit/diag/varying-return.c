// A returned value that varies only because a rank-varying condition picks
// where a collective's result is assigned: the objective is then its sum
// over the ranks, P times the value every rank returns.  A warning at the
// condition says so; a replicated condition, or a per-rank choice between
// values that differ, says nothing.
//
// RUN: %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// RUN: %mpiad-emit -Wno-mpiad-varying-return %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: warning:
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x)
double early(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, g;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    // CHECK: varying-return.c:[[@LINE+1]]:5: warning: the value 'early' returns counts as varying over the ranks only because this condition, which varies, decides where it is assigned; the objective is then its sum over the ranks (P times the value if all return the same); if they do, make the condition equal on all ranks (test a value reduced over them) [-Wmpiad-varying-return]
    if (s > 100.0) {
      MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
      return g;
    }
  }
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

// The condition tests the reduced value: equal on all ranks, no warning.
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double early_reduced(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, g = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (g > 100.0)
      return g;
  }
  return g;
}

// Each rank picks its own value: their sum is the objective meant.
#pragma mpiad differentiate wrt(a) replicated(a) varying(mode)
double pick(double a, int mode) {
  double v = a;
  if (mode == 1)
    v = a * a;
  return v;
}
