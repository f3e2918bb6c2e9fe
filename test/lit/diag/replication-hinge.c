// Replication is never guessed.  An input in neither replicated(...) nor
// varying(...) is unclassified: where the generated adjoint does not depend
// on its classification nothing is said; where it does, mpiad-cc stops with
// one error per such input, at the pragma, saying what to add.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error: --implicit-check-not warning:
// RUN: test ! -e %t.c
// With the clauses the errors ask for, the adjoint is written and nothing is said.
// RUN: %mpiad-emit -DFIXED %s -o %t.fixed.c 2>&1 | FileCheck %s --check-prefix=FIXED --allow-empty --implicit-check-not error: --implicit-check-not warning:
// RUN: FileCheck --check-prefix=GEN --input-file %t.fixed.c %s

#include <mpi.h>

// The NetKet shape (../shared/seeds): a local sum over this rank's samples,
// an Allreduce, a division by the total count.  If ntotal were taken as
// varying, the result would vary and the objective would sum it over ranks:
// a gradient P times too large.  s (the samples) matters too: were the
// samples equal on all ranks, the objective would be P times the local sum.
// nlocal only bounds a loop over the samples: no clause needed.
#ifdef FIXED
#pragma mpiad differentiate wrt(theta, s) replicated(theta, ntotal) varying(s)
#else
// CHECK: {{.*}}replication-hinge.c:[[@LINE+3]]:1: error: the gradient depends on whether 's' is equal on all ranks; add replicated(s) if it is, or varying(s) if it differs between ranks
// CHECK: {{.*}}replication-hinge.c:[[@LINE+2]]:1: error: the gradient depends on whether 'ntotal' is equal on all ranks; add replicated(ntotal) if it is, or varying(ntotal) if it differs between ranks
// CHECK-NOT: 'nlocal'
#pragma mpiad differentiate wrt(theta, s) replicated(theta)
#endif
double energy(const double *theta, const double *s, int nlocal, int ntotal,
              MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < nlocal; i++)
    local += (theta[0] * s[i] + theta[1]) * (theta[0] * s[i] + theta[1]);
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total / ntotal;
}

// A purely replicated computation: taken as varying, n would make the result
// a per-rank value summed over ranks, and the adjoint would add an Allreduce
// the primal never needed.
#ifdef FIXED
#pragma mpiad differentiate wrt(theta) replicated(theta[n], n)
#else
// CHECK: {{.*}}replication-hinge.c:[[@LINE+2]]:1: error: the gradient depends on whether 'theta' is equal on all ranks; add replicated(theta) if it is, or varying(theta) if it differs between ranks
// CHECK: {{.*}}replication-hinge.c:[[@LINE+1]]:1: error: the gradient depends on whether 'n' is equal on all ranks; add replicated(n) if it is, or varying(n) if it differs between ranks
#pragma mpiad differentiate wrt(theta)
#endif
double reg(const double *theta, int n) {
  double r = 0.0;
  for (int i = 0; i < n; i++)
    r += theta[i] * theta[i];
  return r;
}

// A flag that selects a branch: when it differs between ranks, the values
// assigned under the branch vary.
#ifdef FIXED
#pragma mpiad differentiate wrt(a) replicated(a) varying(mode)
#else
// CHECK: {{.*}}replication-hinge.c:[[@LINE+2]]:1: error: the gradient depends on whether 'mode' is equal on all ranks; add replicated(mode) if it is, or varying(mode) if it differs between ranks
// CHECK-NOT: error: {{.*}}'a'
#pragma mpiad differentiate wrt(a) replicated(a)
#endif
double pick(double a, int mode) {
  double v = a;
  if (mode == 1)
    v = a * a;
  return v;
}

// The same branch before an Allreduce needs no clause: whether the flag
// differs between ranks or not, v's adjoint is each rank's share of the
// gradient of the sum, and the code is the same.
#pragma mpiad differentiate wrt(a) replicated(a)
double pick_sum(double a, int mode, MPI_Comm comm) {
  double v = a;
  if (mode == 1)
    v = a * a;
  double t = 0.0;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

// Everything the code depends on is classified: nothing is said about n,
// whichever it is (x varies, so everything computed from it varies).
#pragma mpiad differentiate wrt(x) varying(x)
double local_sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

// The header comment lists both clauses.
// GEN: {{^}} * mpiad: adjoint (reverse mode) of energy, semantics(global)
// GEN: {{^}} *   dependents:   return value (replicated: counted once)
// GEN-NEXT: {{^}} *   replicated:   theta, ntotal
// GEN-NEXT: {{^}} *   varying:      s
// GEN: {{^}}double energy_b(
// GEN: {{^}} *   dependents:   return value (replicated: counted once)
// GEN: {{^}}double reg_b(
// GEN: {{^}} *   dependents:   return value (varying: summed over ranks)
// GEN: {{^}}double pick_b(
// GEN: {{^}}double pick_sum_b(
// GEN: {{^}}double local_sum_b(
// FIXED-NOT: warning
