// A differentiated block in main (Outline.cpp): the time loop of a 1-D heat
// solver with a halo exchange, written in main as tutorials write it, marked
// by one pragma on the block.  The block becomes a function of its own; the
// variables of main it uses become its parameters in the order of their
// first use (nsteps, kappa, J: u is used by the block only, so it moves into
// the outlined function).  main then calls the generated adjoint heat_b.
// Reverse mode against central differences (the adjoint with a zero seed
// computes J too) and forward mode against reverse, at 1-4 ranks; FileCheck
// of the outlined function, the call and the user's line numbers.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: #line [[#LINE:]] "{{.*}}block_in_main.c"
// GEN-NEXT: // #pragma mpiad differentiate wrt(kappa) output(J)
// GEN: static void mpiad_block_L[[#LINE+2]](int nsteps, double kappa[8], double *J)
// GEN-NEXT: #line [[#LINE+2]] "{{.*}}block_in_main.c"
// GEN-NEXT: { double u[10];
// GEN: (*J) = 0.0;
// GEN: void heat_b(int nsteps, double *kappa, double *kappa_b, double *J, double *J_b) {
// GEN: void heat_d(int nsteps, double *kappa, double *kappa_d, double *J, double *J_d) {
// GEN: int main(
// GEN: mpiad_block_L[[#LINE+2]](nsteps, kappa, &J); (void)u;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 8

static double J_of(void *p);
static double *kappa_g;
static int nsteps_g;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int nsteps = 12;
  double kappa[N], u[N + 2], J;
  hx_rand(kappa, N, 17, hx_rank_g, 0.2, 0.4);

#pragma mpiad differentiate wrt(kappa) output(J) varying(kappa) replicated(nsteps) name(heat_b)
#pragma mpiad differentiate forward wrt(kappa) output(J) name(heat_d)
  {
    int r, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int left = (r + P - 1) % P, right = (r + 1) % P;
    for (int i = 0; i < N + 2; i++)
      u[i] = sin(0.3 * (i + r * N)) + 1.5;
    for (int t = 0; t < nsteps; t++) {
      MPI_Sendrecv(&u[N], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left,
                   0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[N + 1], 1, MPI_DOUBLE,
                   right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double un[N];
      for (int i = 1; i <= N; i++)
        un[i - 1] = u[i] + kappa[i - 1] * u[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
      for (int i = 1; i <= N; i++)
        u[i] = un[i - 1];
    }
    double local = 0.0;
    for (int i = 1; i <= N; i++)
      local += u[i] * u[i] * u[i];
    J = 0.0;
    MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }

  /* the block ran as the program wrote it */
  kappa_g = kappa;
  nsteps_g = nsteps;
  double J0 = J;
  hx_check("J after the block", J0, J_of(kappa), 1e-14, 1e-300);

  /* dJ/dkappa: J is replicated, so every rank seeds 1 */
  double kappa_b[N] = {0}, J_b = 1.0, Jv = 0.0;
  heat_b(nsteps, kappa, kappa_b, &Jv, &J_b);
  hx_tape("heat_b");
  hx_check("J from heat_b", Jv, J0, 1e-14, 1e-300);
  double dk[N];
  hx_rand(dk, N, 18, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {kappa, dk, N, 0};
  double *kb[1] = {kappa_b};
  hx_grad("heat_b", J_of, NULL, &in, 1, kb, 1e-6, 1e-7, 1e-12);

  double kd[N], Jd = 0.0, Jf = 0.0;
  memcpy(kd, dk, sizeof kd);
  heat_d(nsteps, kappa, kd, &Jf, &Jd);
  hx_check("heat_d vs heat_b", Jd,
           mpiad_adjoint_directional(&in, kb, 1, MPI_COMM_WORLD), 1e-12,
           1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}

/* J at kappa_g, through the adjoint with a zero seed. */
static double J_of(void *p) {
  (void)p;
  double kb[N] = {0}, Jb = 0.0, Jv = 0.0;
  heat_b(nsteps_g, kappa_g, kb, &Jv, &Jb);
  return Jv;
}
