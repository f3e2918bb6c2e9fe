// Branches on the counters of the loops around them are taken again in the
// reverse sweep, not recorded (Reverse.cpp sameInReverse), also where the
// counter is a variable of the function that several loops reuse (LLNL's
// mpi_wave.c: `int i, j;` and `if ((first + j - 1 == 1) || ...)`):
//  - ends: the string's ends pinned by a branch on the global index, j
//    reused by the copy loop, inside a time loop, with a one-point exchange
//    of ghosts by MPI_Sendrecv;
//  - diag: a branch on both counters of a nest (`i == j`, `j < i`);
//  - after: a branch on j after its loop and after another loop that
//    reuses j (j then holds another value in the reverse sweep: that branch
//    must be recorded, not taken again).
// Checked at 1-4 ranks against central differences, forward against
// reverse.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double ends_b(
// GEN-NOT: mpiad_push_i64
// GEN: reverse sweep
// GEN: if (first + j - 1 == 1 || first + j - 1 == N) {
// GEN-LABEL: double diag_b(
// GEN-NOT: mpiad_push_i64
// GEN: reverse sweep
// GEN-LABEL: double after_b(
// GEN: mpiad_push_i64
// GEN: reverse sweep
// GEN: if (mpiad_pop_i64()) {
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define N 12

#pragma mpiad differentiate wrt(x) varying(x, n, first, left, right)
#pragma mpiad differentiate forward wrt(x)
double ends(const double *x, int n, int first, int T, int left, int right,
            MPI_Comm comm) {
  double v[N + 2] = {0}, o[N + 2] = {0}, nv[N + 2] = {0};
  double s = 0.0, J;
  int i, j;
  for (j = 1; j <= n; j++) {
    v[j] = x[j - 1];
    o[j] = 0.5 * x[j - 1];
  }
  for (i = 0; i < T; i++) {
    MPI_Sendrecv(&v[1], 1, MPI_DOUBLE, left, 0, &v[n + 1], 1, MPI_DOUBLE,
                 right, 0, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&v[n], 1, MPI_DOUBLE, right, 1, &v[0], 1, MPI_DOUBLE, left,
                 1, comm, MPI_STATUS_IGNORE);
    for (j = 1; j <= n; j++) {
      if (first + j - 1 == 1 || first + j - 1 == N)
        nv[j] = 0.3 * v[j] * v[j];
      else
        nv[j] = 2.0 * v[j] - o[j] + 0.09 * (v[j - 1] - 2.0 * v[j] + v[j + 1]);
    }
    for (j = 1; j <= n; j++) {
      o[j] = v[j];
      v[j] = nv[j];
    }
  }
  for (j = 1; j <= n; j++)
    s += v[j] * v[j] * (1.0 + 0.1 * (first + j));
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x, n)
#pragma mpiad differentiate forward wrt(x)
double diag(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, J;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (i == j)
        s += x[i] * x[i] * x[j];
      else if (j < i)
        s += sin(x[i] * x[j]);
      else
        s += 0.5 * x[j];
    }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x, n)
#pragma mpiad differentiate forward wrt(x)
double after(const double *x, int n, MPI_Comm comm) {
  double s = 0.0, J;
  int j;
  for (j = 0; j < n; j++)
    s += x[j] * x[j];
  if (j > 2)
    s = s * s;
  else
    s = s * x[0];
  for (j = 0; j < 1; j++)
    s += x[j];
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

typedef struct {
  double *x;
  int which, n, first, T, left, right;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c->which) {
  case 0:
    return ends(c->x, c->n, c->first, c->T, c->left, c->right, w);
  case 1:
    return diag(c->x, c->n, w);
  default:
    return after(c->x, c->n, w);
  }
}

static double run(ctx_t *c, double *xb, double *xd, double *jd, int tangent) {
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c->which) {
  case 0:
    return tangent ? ends_d(c->x, xd, c->n, c->first, c->T, c->left, c->right,
                            w, jd)
                   : ends_b(c->x, xb, c->n, c->first, c->T, c->left, c->right,
                            w, 1.0);
  case 1:
    return tangent ? diag_d(c->x, xd, c->n, w, jd)
                   : diag_b(c->x, xb, c->n, w, 1.0);
  default:
    return tangent ? after_d(c->x, xd, c->n, w, jd)
                   : after_b(c->x, xb, c->n, w, 1.0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, p = hx_size_g;
  const char *names[] = {"ends", "diag", "after"};
  for (int which = 0; which < 3; which++)
    for (int T = 0; T < 4; T += 3)
      for (int total = 4; total <= N; total += 8) {
        if (total < p)
          continue;
        ctx_t c = {0};
        c.which = which;
        c.T = T;
        /* the string's points dealt out as mpi_wave.c deals them */
        int nmin = total / p, nleft = total % p, k = 0;
        for (int i = 0; i < p; i++) {
          int npts = i < nleft ? nmin + 1 : nmin;
          if (i == r) {
            c.first = k + 1;
            c.n = npts;
          }
          k += npts;
        }
        if (which == 0 && total != N)
          continue; /* ends pins the points 1 and N */
        c.left = r > 0 ? r - 1 : MPI_PROC_NULL;
        c.right = r < p - 1 ? r + 1 : MPI_PROC_NULL;
        double x[N], dx[N], xb[N] = {0}, xd[N];
        unsigned long long seed = 10 * which + T + total;
        hx_rand(x, (size_t)c.n, seed, r, 0.2, 1.0);
        hx_rand(dx, (size_t)c.n, seed + 1, r, -1.0, 1.0);
        c.x = x;
        char label[80];
        snprintf(label, sizeof label, "%s n=%d T=%d", names[which], total, T);
        double v = run(&c, xb, NULL, NULL, 0);
        hx_check(label, v, J(&c), 1e-14, 1e-300);
        hx_tape(label);
        mpiad_input in = {x, dx, (size_t)c.n, 0};
        double *xbp[1] = {xb};
        hx_grad(label, J, &c, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
        for (int i = 0; i < c.n; i++)
          xd[i] = dx[i];
        double jd = 0.0;
        run(&c, NULL, xd, &jd, 1);
        char buf[120];
        snprintf(buf, sizeof buf, "%s: forward vs reverse mode", label);
        hx_check(buf, jd, mpiad_adjoint_directional(&in, xbp, 1, hx_comm_g),
                 1e-12, 1e-300);
      }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
