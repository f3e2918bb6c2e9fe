// A pointer to a parameter block read from a pointer field, as CoMD reads
// its potential (`LjPotential *pot = (LjPotential *)s->pot;` then
// `pot->sigma`): the data behind a pointer field is a constant, so the
// pointer is one too, and it was refused as "assigned" (found on
// exmatex/CoMD by a tester who did not write mpiad).  Where a struct of
// the same type carries derivatives, the pointer could point into it, and
// the assignment is still refused (diag/struct-pointer-from-field.c).
// Against the closed form at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// The pointer and its data carry nothing: no shadow of pot.
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double energy_b(
// GEN-NOT: pot_b
// GEN: pot = (LjPotential *)s->pot;
// GEN-NOT: pot_b
// GEN: r_b[i] += sigma * (pot[0].epsilon * (e_b * (sigma * r[i])));
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct {
  double sigma, epsilon;
  int n;
} LjPotential;
typedef struct {
  void *pot;
  int nLocal;
} SimFlat;

// J = sum over ranks of epsilon * sum_i (sigma * r_i)^2.
#pragma mpiad differentiate wrt(r) varying(r)
double energy(const SimFlat *s, const double *r, MPI_Comm comm) {
  LjPotential *pot = (LjPotential *)s->pot;
  double sigma = pot->sigma;
  double e = 0.0, g;
  for (int i = 0; i < s->nLocal; i++)
    e += pot->epsilon * (sigma * r[i]) * (sigma * r[i]);
  MPI_Allreduce(&e, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  LjPotential lj = {1.5, 0.25, 0};
  SimFlat s = {&lj, 4};
  double r[4], rb[4];
  hx_rand(r, 4, 81, hx_rank_g, -1.0, 1.0);
  memset(rb, 0, sizeof rb);
  energy_b(&s, r, rb, MPI_COMM_WORLD, 1.0);
  hx_tape("energy_b");
  double err = 0.0;
  for (int i = 0; i < 4; i++)
    err = fmax(err, fabs(rb[i] - 2.0 * lj.epsilon * lj.sigma * lj.sigma * r[i]));
  hx_check_each("energy_b = 2 epsilon sigma^2 r, largest error", err, 0.0, 1.0, 1e-14);
  hx_check_each("parameters untouched", lj.sigma + lj.epsilon, 1.75, 0.0, 0.0);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
