// Floating locals computed again by the reverse sweep instead of recorded
// (codegen/recompute-floating.c shows which): the adjoints must equal central
// differences at 1 to 4 ranks.  misfit and fromIndex recompute; the others
// read values that change afterwards (in the same body, in a later loop,
// earlier in the body of the enclosing time loop, through a pointer swap),
// so they must keep recording, and a wrong recomputation there would read
// the changed values.  Data vary per rank; each objective is summed over
// ranks.  The tape must be empty after each call.  (linearSteps is the
// case where recomputing would be wrong and nothing else would notice: its
// in-place linear step records nothing.)
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(u) varying(u)
double misfit(const double *u, const double *uobs, int nx, int ny, MPI_Comm comm) {
  int ys = ny + 2;
  double local = 0.0, J = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
      local += d * d * u[i * ys + j - 1];
    }
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x)
double fromIndex(const double *x, int n, double r, MPI_Comm comm) {
  double s = 0.0, J = 0.0;
  for (int i = 1; i < n; i++) {
    int c = i - 1;
    double a = r * (x[c] + x[i]) - 0.25;
    s += a * a * a;
  }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

/* x in place: a reads x[i] before the body overwrites it. */
#pragma mpiad differentiate wrt(x) output(return, x) varying(x)
double sameBody(double *x, int n, MPI_Comm comm) {
  double s = 0.0, J = 0.0;
  for (int i = 0; i < n; i++) {
    double a = x[i] + 1.0;
    x[i] = a * a;
    s += a * x[i];
  }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

/* Time steps: the field changes earlier in the same time-loop body, and
 * a second buffer is swapped in by pointer each step. */
#pragma mpiad differentiate wrt(x0) varying(x0)
double timeLoop(const double *x0, int n, int T, MPI_Comm comm) {
  double *x = malloc(n * sizeof(double));
  double *y = malloc(n * sizeof(double));
  double s = 0.0, J = 0.0;
  for (int i = 0; i < n; i++)
    x[i] = x0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      y[i] = x[i] + 0.3 * x[i] * x[(i + 1) % n];
    double *tmp = x;
    x = y;
    y = tmp;
    for (int i = 0; i < n; i++) {
      double a = x[i] - 0.5;
      s += a * a * a;
    }
  }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(x);
  free(y);
  return J;
}

/* A linear step in place: nothing records x's old values, so a value
 * computed from x in an earlier step must be recorded, not computed again
 * from the final x. */
#pragma mpiad differentiate wrt(x0) varying(x0)
double linearSteps(const double *x0, int n, int T, MPI_Comm comm) {
  double *x = malloc(n * sizeof(double));
  double s = 0.0, J = 0.0;
  for (int i = 0; i < n; i++)
    x[i] = x0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * x[i] + 0.25;
    for (int i = 0; i < n; i++) {
      double a = x[i] - 0.3;
      s += a * a * a;
    }
  }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(x);
  return J;
}

/* The field is overwritten by a later loop. */
#pragma mpiad differentiate wrt(x0) varying(x0)
double laterLoop(const double *x0, int n, MPI_Comm comm) {
  double *x = malloc(n * sizeof(double));
  double s = 0.0, J = 0.0;
  for (int i = 0; i < n; i++)
    x[i] = x0[i] * x0[i];
  for (int i = 0; i < n; i++) {
    double a = 2.0 * x[i] - 0.1;
    s += a * a * a;
  }
  for (int i = 0; i < n; i++)
    x[i] = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(x);
  return J;
}

typedef struct {
  int nx, ny, n, T;
  double *u, *uobs, *x, *work;
} ctx_t;

static double misfit_J(void *p) {
  ctx_t *c = p;
  return misfit(c->u, c->uobs, c->nx, c->ny, MPI_COMM_WORLD);
}
static double fromIndex_J(void *p) {
  ctx_t *c = p;
  return fromIndex(c->x, c->n, 0.7, MPI_COMM_WORLD);
}
static double sameBody_J(void *p) {
  ctx_t *c = p;
  memcpy(c->work, c->x, (size_t)c->n * sizeof(double));
  return sameBody(c->work, c->n, MPI_COMM_WORLD);
}
static double linearSteps_J(void *p) {
  ctx_t *c = p;
  return linearSteps(c->x, c->n, c->T + 1, MPI_COMM_WORLD);
}
static double laterLoop_J(void *p) {
  ctx_t *c = p;
  return laterLoop(c->x, c->n, MPI_COMM_WORLD);
}
static double timeLoop_J(void *p) {
  ctx_t *c = p;
  return timeLoop(c->x, c->n, c->T, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  for (int k = 0; k < 2; k++) {
    ctx_t c = {2 + k, 3 + 2 * k, 5 + 3 * k, 1 + 2 * k, NULL, NULL, NULL, NULL};
    size_t nu = (size_t)(c.nx + 2) * (c.ny + 2), no = (size_t)c.nx * c.ny, n = c.n;
    c.u = malloc(nu * sizeof(double));
    c.uobs = malloc(no * sizeof(double));
    c.x = malloc(n * sizeof(double));
    c.work = malloc(n * sizeof(double));
    double *du = malloc(nu * sizeof(double)), *ub = calloc(nu, sizeof(double));
    double *dx = malloc(n * sizeof(double)), *xb = calloc(n, sizeof(double));
    hx_rand(c.u, nu, 10 + k, r, -1.0, 1.0);
    hx_rand(c.uobs, no, 20 + k, r, -1.0, 1.0);
    hx_rand(c.x, n, 30 + k, r, -0.5, 0.5);
    hx_rand(du, nu, 40 + k, r, -1.0, 1.0);
    hx_rand(dx, n, 50 + k, r, -1.0, 1.0);
    double *g[1];
    mpiad_input in;

    double want = misfit_J(&c);
    double got = misfit_b(c.u, ub, c.uobs, c.nx, c.ny, MPI_COMM_WORLD, 1.0);
    hx_tape("misfit_b");
    hx_check("misfit_b value", got, want, 1e-13, 1e-300);
    in = (mpiad_input){c.u, du, nu, 0};
    g[0] = ub;
    hx_grad("misfit d J / d u", misfit_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    in = (mpiad_input){c.x, dx, n, 0};
    g[0] = xb;
    want = fromIndex_J(&c);
    got = fromIndex_b(c.x, xb, c.n, 0.7, MPI_COMM_WORLD, 1.0);
    hx_tape("fromIndex_b");
    hx_check("fromIndex_b value", got, want, 1e-13, 1e-300);
    hx_grad("fromIndex d J / d x", fromIndex_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    memset(xb, 0, n * sizeof(double));
    want = sameBody_J(&c);
    memcpy(c.work, c.x, n * sizeof(double));
    got = sameBody_b(c.work, xb, c.n, MPI_COMM_WORLD, 1.0);
    hx_tape("sameBody_b");
    hx_check("sameBody_b value", got, want, 1e-13, 1e-300);
    hx_grad("sameBody d J / d x", sameBody_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    memset(xb, 0, n * sizeof(double));
    want = timeLoop_J(&c);
    got = timeLoop_b(c.x, xb, c.n, c.T, MPI_COMM_WORLD, 1.0);
    hx_tape("timeLoop_b");
    hx_check("timeLoop_b value", got, want, 1e-13, 1e-300);
    hx_grad("timeLoop d J / d x0", timeLoop_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    memset(xb, 0, n * sizeof(double));
    want = linearSteps_J(&c);
    got = linearSteps_b(c.x, xb, c.n, c.T + 1, MPI_COMM_WORLD, 1.0);
    hx_tape("linearSteps_b");
    hx_check("linearSteps_b value", got, want, 1e-13, 1e-300);
    hx_grad("linearSteps d J / d x0", linearSteps_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    memset(xb, 0, n * sizeof(double));
    want = laterLoop_J(&c);
    got = laterLoop_b(c.x, xb, c.n, MPI_COMM_WORLD, 1.0);
    hx_tape("laterLoop_b");
    hx_check("laterLoop_b value", got, want, 1e-13, 1e-300);
    hx_grad("laterLoop d J / d x0", laterLoop_J, &c, &in, 1, g, 1e-6, 1e-7, 1e-10);

    free(xb);
    free(dx);
    free(ub);
    free(du);
    free(c.work);
    free(c.x);
    free(c.uobs);
    free(c.u);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
