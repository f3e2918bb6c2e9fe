// Time loops ending in a copy-back `u[i] = unew[i]` that mpiad-cc turns into
// pointer swaps (codegen/copy-back-swap.c shows the generated code): the
// adjoint must equal central differences of the user's primal, which copies.
// Field sizes 1 to 9 (so the boundary writes and the interior loop overlap or
// are empty) and step counts 0 to 5 (odd counts end with the buffers
// exchanged); boundary writes in either order; a two-stage step with a second
// buffer; a linear step with an output array, checked by the exact
// dot-product test.  In diffusion, drift and linear the adjoint of the
// interior loop also overwrites u_b instead of adding to it; in reaction it
// must not (the boundary writes after it read the field).  Data vary per
// rank and the objective is summed over ranks.  The tape stays empty:
// nothing is recorded.  The tangents (forward mode, which swaps the buffers
// and their tangents) are checked against central differences too.
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

#include "harness.h"

/* Explicit diffusion, fixed ends; J = sum over ranks of sum u^2. */
#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double diffusion(const double *u0, int n, int T, double nu, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[0] = u[0];
    unew[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(unew);
  return J;
}

/* Boundaries written after the interior, the right one first, a calloc'd
 * buffer, the source of the copy read before the copy in the step, and a
 * second independent.  The boundary writes read v after the interior loop,
 * so the interior's adjoint must add to v_b, not overwrite it. */
#pragma mpiad differentiate wrt(u0, a) varying(u0, a)
#pragma mpiad differentiate forward wrt(u0, a)
double reaction(const double *u0, double a, int n, int T, MPI_Comm comm) {
  double *v = calloc(n, sizeof(double));
  double *w = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    v[i] = u0[i];
  double m = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      w[i] = v[i] + 0.2 * (v[i - 1] - 2.0 * v[i] + v[i + 1]);
    w[n - 1] = 0.5 * v[n - 1] + a;
    w[0] = 0.5 * v[0] - a;
    m += w[0] - 0.5 * w[n - 1];
    for (int k = 0; k < n; k++)
      v[k] = w[k];
  }
  double s = m;
  for (int i = 0; i < n; i++)
    s += sin(v[i]);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(v);
  free(w);
  return J;
}

/* One-sided: the interior loop's adjoint overwrites u_b; unew is read
 * between it and the copy, and before the time loop (so its adjoint must be
 * zero again after the reversed time loop). */
#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double drift(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int i = 0; i < n; i++)
    unew[i] = 0.25 * u[i];
  double m = unew[n - 1];
  for (int i = 0; i < n; i++)
    m += unew[i] * (double)i;
  for (int t = 0; t < T; t++) {
    unew[n - 1] = 0.5 * u[n - 1];
    for (int i = 0; i < n - 1; i++)
      unew[i] = u[i] + 0.3 * (u[i + 1] - u[i]);
    m += 0.5 * unew[0] + unew[n - 1];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = m;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(unew);
  return J;
}

/* Two stages per step: p -> q -> r, then the copy-back p = r. */
#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double twostage(const double *u0, int n, int T, MPI_Comm comm) {
  double *p = malloc(n * sizeof(double));
  double *q = malloc(n * sizeof(double));
  double *r = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    p[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      q[i] = 0.5 * p[i] + 0.25 * p[(i + 1) % n];
    for (int i = 0; i < n; i++)
      r[i] = q[i] - 0.125 * q[(i + n - 1) % n] + p[i];
    for (int i = 0; i < n; i++)
      p[i] = r[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i] * (1.0 + 0.1 * i);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(p);
  free(q);
  free(r);
  return J;
}

/* Linear: y = final field, for the dot-product test. */
#pragma mpiad differentiate wrt(u0) output(y) varying(u0)
void linear(const double *u0, double *y, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[n - 1] = u[n - 1] - 0.3 * u[0];
    for (int i = 0; i < n - 1; i++)
      unew[i] = u[i] + 0.3 * (u[i + 1] - u[i]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  for (int i = 0; i < n; i++)
    y[i] = u[i];
  free(u);
  free(unew);
}

/* The time loop in a callee: forward mode's tangent helper of `smooth`
 * swaps too (reverse mode keeps the copy in split callee helpers). */
static double smooth(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[0] = u[0];
    for (int i = 1; i < n; i++)
      unew[i] = 0.5 * (u[i] + u[i - 1]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i] * u[i];
  free(u);
  free(unew);
  return s;
}

#pragma mpiad differentiate wrt(u0) varying(u0)
#pragma mpiad differentiate forward wrt(u0)
double outer(const double *u0, int n, int T, MPI_Comm comm) {
  double s = smooth(u0, n, T);
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

enum { NMAX = 9 };
typedef struct {
  double *u0, *a;
  int which, n, T;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  switch (c->which) {
  case 0:
    return diffusion(c->u0, c->n, c->T, 0.2, MPI_COMM_WORLD);
  case 1:
    return reaction(c->u0, *c->a, c->n, c->T, MPI_COMM_WORLD);
  case 2:
    return drift(c->u0, c->n, c->T, MPI_COMM_WORLD);
  case 4:
    return outer(c->u0, c->n, c->T, MPI_COMM_WORLD);
  default:
    return twostage(c->u0, c->n, c->T, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  const int sizes[] = {1, 2, 3, 4, 9};
  const int steps[] = {0, 1, 2, 5};
  const char *names[] = {"diffusion", "reaction", "drift", "twostage",
                         "outer"};
  for (int which = 0; which < 5; which++)
    for (int si = 0; si < 5; si++)
      for (int ti = 0; ti < 4; ti++) {
        int n = sizes[si], T = steps[ti];
        if (which == 3 && n < 2)
          continue;
        double u0[NMAX], du[NMAX], ub[NMAX] = {0}, a = 0.1 + 0.05 * r,
                                    da = 0.7, ab = 0.0;
        unsigned long long seed = 100 * which + 10 * si + ti;
        hx_rand(u0, n, seed, r, -1.0, 1.0);
        hx_rand(du, n, seed + 1000, r, -1.0, 1.0);
        double v;
        if (which == 0)
          v = diffusion_b(u0, ub, n, T, 0.2, MPI_COMM_WORLD, 1.0);
        else if (which == 1)
          v = reaction_b(u0, ub, a, &ab, n, T, MPI_COMM_WORLD, 1.0);
        else if (which == 2)
          v = drift_b(u0, ub, n, T, MPI_COMM_WORLD, 1.0);
        else if (which == 3)
          v = twostage_b(u0, ub, n, T, MPI_COMM_WORLD, 1.0);
        else
          v = outer_b(u0, ub, n, T, MPI_COMM_WORLD, 1.0);
        char label[96];
        snprintf(label, sizeof label, "%s n=%d T=%d", names[which], n, T);
        ctx_t c = {u0, &a, which, n, T};
        hx_check(label, v, J(&c), 1e-14, 1e-300);
        hx_tape(label);
        mpiad_input in[2] = {{u0, du, n, 0}, {&a, &da, 1, 0}};
        double *xb[2] = {ub, &ab};
        hx_grad(label, J, &c, in, which == 1 ? 2 : 1, xb, 1e-6, 1e-7, 1e-10);
        /* tangent mode swaps the buffers and their tangents */
        double jd = 0.0, ud[NMAX];
        for (int k = 0; k < n; k++)
          ud[k] = du[k];
        if (which == 0)
          v = diffusion_d(u0, ud, n, T, 0.2, MPI_COMM_WORLD, &jd);
        else if (which == 1)
          v = reaction_d(u0, ud, a, da, n, T, MPI_COMM_WORLD, &jd);
        else if (which == 2)
          v = drift_d(u0, ud, n, T, MPI_COMM_WORLD, &jd);
        else if (which == 3)
          v = twostage_d(u0, ud, n, T, MPI_COMM_WORLD, &jd);
        else
          v = outer_d(u0, ud, n, T, MPI_COMM_WORLD, &jd);
        char flabel[128];
        snprintf(flabel, sizeof flabel, "%s: tangent", label);
        hx_check(flabel, v, J(&c), 1e-14, 1e-300);
        double fd = mpiad_fd_directional(J, &c, in, which == 1 ? 2 : 1, 1e-6);
        hx_check(flabel, jd, fd, 1e-7, 1e-10);
      }
  for (int si = 0; si < 5; si++)
    for (int ti = 0; ti < 4; ti++) {
      int n = sizes[si], T = steps[ti];
      double u0[NMAX], du[NMAX], ub[NMAX] = {0}, y[NMAX], yb[NMAX], ydu[NMAX];
      hx_rand(u0, n, 500 + si, r, -1.0, 1.0);
      hx_rand(du, n, 600 + ti, r, -1.0, 1.0);
      hx_rand(yb, n, 700 + si + ti, r, -1.0, 1.0);
      linear(du, ydu, n, T);
      double lhs = mpiad_dot(ydu, yb, n, 0, MPI_COMM_WORLD);
      linear_b(u0, ub, y, yb, n, T);
      char label[96];
      snprintf(label, sizeof label, "linear n=%d T=%d", n, T);
      hx_tape(label);
      mpiad_input in = {u0, du, n, 0};
      double *xb[1] = {ub};
      hx_dot_test(label, lhs, &in, 1, xb, 1e-12);
    }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
