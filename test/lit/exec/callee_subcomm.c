// Communicators through inlined helpers are told apart by identity, not by
// name: a helper whose local 'comm' holds a sub-communicator of two ranks
// (MPI_Comm_split), called from a function whose own communicator is also
// named 'comm', sums over the pair only, so its result varies and the adjoint
// reduces the cotangent over the pair (it used to be taken for the caller's
// communicator: replicated, with a local adjoint, and the reverse Allreduce
// was printed with the caller's 'comm'); and a helper whose parameter 'c'
// receives the caller's 'world' returns a replicated value, counted once.
// Checks against central differences of the objectives (the varying return
// summed over ranks, the replicated one as is) at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: dependents:   return value (varying: summed over ranks)
// GEN: MPI_Allreduce(MPI_IN_PLACE, &s_2_b, 1, MPI_DOUBLE, MPI_SUM, comm_2);
// GEN: dependents:   return value (replicated: counted once)
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

static double pair_sum(double v, MPI_Comm world) {
  int r;
  MPI_Comm_rank(world, &r);
  MPI_Comm comm;
  MPI_Comm_split(world, r / 2, r, &comm);
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Comm_free(&comm);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, MPI_Comm comm) {
  double v = x[0] * x[0] + sin(x[1]);
  double s = pair_sum(v, comm);
  return s * x[1];
}

static double gsum(double v, MPI_Comm c) {
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, c);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double g(const double *x, MPI_Comm world) {
  double v = x[0] * x[0] * x[1];
  return gsum(v, world) * 0.5;
}

static double Jf(void *p) {
  double v = f(p, MPI_COMM_WORLD), s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}
static double Jg(void *p) { return g(p, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[2], dx[2];
  hx_rand(x, 2, 121, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, 2, 122, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {x, dx, 2, 0};
  double fb[2] = {0, 0}, gb[2] = {0, 0};
  double *xb[1] = {fb};
  f_b(x, fb, MPI_COMM_WORLD, 1.0);
  hx_tape("f_b");
  hx_grad("pair sum in a helper (varying)", Jf, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  xb[0] = gb;
  g_b(x, gb, MPI_COMM_WORLD, 1.0);
  hx_tape("g_b");
  hx_grad("global sum in a helper (replicated)", Jg, x, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
