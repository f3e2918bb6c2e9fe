// A time step that reads its field through a pointer it declares,
// `const double *pu = u;`, then copies back: the pointer is assigned from u
// before each use and used before the copy, so the copy is still a swap
// (BufferSwap.cpp, windowAliases: a declaration counts as the assignment),
// and the nonlinear step's old field is kept whole on the tape.  The
// gradient against central differences and the tangent at 1-4 ranks, for 0
// to 3 steps.  The random generator draws this form too (gen_compute.py,
// rng13).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double stepper_b(
// GEN: pu = u;
// GEN: copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers
// GEN: mpiad_push_buffer(un,
// GEN-LABEL: double stepper_d(
// GEN: copy-back of the region of u from un
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double stepper(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = malloc((size_t)n * sizeof(double));
  double *un = malloc((size_t)n * sizeof(double));
  for (int k = 0; k < n; k++)
    u[k] = u0[k];
  for (int t = 0; t < T; t++) {
    const double *pu = u;
    un[0] = pu[0];
    un[n - 1] = pu[n - 1];
    for (int i = 1; i < n - 1; i++)
      un[i] = pu[i] + 0.25 * (pu[i - 1] - 2.0 * pu[i] + pu[i + 1]) -
              0.0625 * pu[i] * pu[i];
    for (int i = 0; i < n; i++)
      u[i] = un[i];
  }
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += u[k] * u[k] * (1.0 + 0.1 * k);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(un);
  return J;
}

typedef struct {
  const double *u0;
  int n, T;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return stepper(c->u0, c->n, c->T, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  for (int n = 2; n <= 7; n++)
    for (int T = 0; T <= 3; T++) {
      double u0[8], du[8], ub[8] = {0}, ud[8];
      hx_rand(u0, n, 10 * n + T, hx_rank_g, -1.0, 1.0);
      hx_rand(du, n, 10 * n + T + 100, hx_rank_g, -1.0, 1.0);
      ctx_t c = {u0, n, T};
      char label[64];
      snprintf(label, sizeof label, "n=%d T=%d", n, T);
      double v = stepper_b(u0, ub, n, T, MPI_COMM_WORLD, 1.0);
      hx_check(label, v, J(&c), 1e-14, 1e-300);
      hx_tape(label);
      mpiad_input in[1] = {{u0, du, n, 0}};
      double *xb[1] = {ub};
      hx_grad(label, J, &c, in, 1, xb, 1e-6, 1e-6, 1e-9);
      for (int k = 0; k < n; k++)
        ud[k] = du[k];
      double jd = 0.0;
      v = stepper_d(u0, ud, n, T, MPI_COMM_WORLD, &jd);
      double fd = mpiad_fd_directional(J, &c, in, 1, 1e-6);
      snprintf(label, sizeof label, "n=%d T=%d: tangent", n, T);
      hx_check(label, jd, fd, 1e-6, 1e-9);
    }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
