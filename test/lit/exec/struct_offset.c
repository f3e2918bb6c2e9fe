// A helper given a pointer into an array of structs (issue 14): `kick(p +
// k, m, dt)` and `kick(&p[k], m, dt)` as MD codes pass the owned part of a
// particle array, also through a helper that passes it on (`q + 1`) and
// reads a field through the pointer itself (`q->m`) and an int field
// (`q[i].id`).  The helper is inlined with `p[k + i]` in place of `q[i]`.
// Reverse mode against central differences and forward mode against
// reverse mode, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double run_b(particle *p, particle *p_b, int n, int k, MPI_Comm comm, double run_bar)
// GEN: /* inlined: kick(p + k, n - k, 0.1) */
// GEN: mpiad_off = k;
// GEN: p[mpiad_off + i].v += dt * p[mpiad_off + i].x * p[mpiad_off + 0].m;
// GEN: /* inlined: kick(&p[1], 2, 0.2) */
// GEN: p_b[mpiad_off_{{[0-9]+}} + i].x +=
// GEN: double run_d(particle *p, particle *p_d, int n, int k, MPI_Comm comm, double *run_dot)
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct {
  double x, v, m;
  int id;
} particle;

static void kick(particle *q, int m, double dt) {
  for (int i = 0; i < m; i++) {
    q[i].v += dt * q[i].x * q->m;
    if (q[i].id % 2 == 0)
      q[i].x += dt * sin(q[i].v);
  }
}

static void kick_rest(particle *q, int m) { kick(q + 1, m - 1, 0.3); }

#pragma mpiad differentiate wrt(p) output(return, p) varying(p)
#pragma mpiad differentiate forward wrt(p) output(return, p) varying(p)
double run(particle *p, int n, int k, MPI_Comm comm) {
  kick(p + k, n - k, 0.1);
  kick(&p[1], 2, 0.2);
  kick_rest(p, n);
  double s = 0.0, g;
  for (int i = 0; i < n; i++)
    s += p[i].x * p[i].v * p[i].m;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#define NP 6
#define K 2

static void unpack(const double *x, particle *p) {
  for (int i = 0; i < NP; i++) {
    p[i].x = x[3 * i];
    p[i].v = x[3 * i + 1];
    p[i].m = x[3 * i + 2];
    p[i].id = i;
  }
}
static void pack(const particle *p, double *x) {
  for (int i = 0; i < NP; i++) {
    x[3 * i] = p[i].x;
    x[3 * i + 1] = p[i].v;
    x[3 * i + 2] = p[i].m;
  }
}

static double J(void *ctx) {
  particle p[NP];
  unpack(ctx, p);
  return run(p, NP, K, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[3 * NP], dx[3 * NP], xb[3 * NP];
  hx_rand(x, 3 * NP, 91, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, 3 * NP, 92, hx_rank_g, -1.0, 1.0);
  particle p[NP], pb[NP], pd[NP];
  unpack(x, p);
  memset(pb, 0, sizeof pb);
  double v = run_b(p, pb, NP, K, MPI_COMM_WORLD, 1.0);
  hx_tape("run_b");
  hx_check("run_b value", v, J(x), 1e-14, 1e-300);
  int ids = 1;
  for (int i = 0; i < NP; i++)
    ids &= pb[i].id == 0 && p[i].id == i;
  hx_check("int fields untouched", ids, 1, 0.0, 0.5);
  pack(pb, xb);
  mpiad_input in = {x, dx, 3 * NP, 0};
  double *xbp[1] = {xb};
  hx_grad("run_b", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  unpack(x, p);
  unpack(dx, pd);
  double dot = 0.0;
  run_d(p, pd, NP, K, MPI_COMM_WORLD, &dot);
  hx_dot_test("run_d vs run_b", dot, &in, 1, xbp, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
