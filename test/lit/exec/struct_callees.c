// Structs with float/double fields passed to same-file helpers (Inline.cpp):
// an n-body step written as a scientist writes it, with forces(), kick(),
// drift() and energy() helpers taking the particle array, a helper taking
// two structs by value, a helper that sums over ranks (the fields of a
// struct summed in place through their addresses, `&mom.x`, one halved by
// a helper), and a fixed array of structs passed to a pointer parameter.  The helpers are
// inlined with the caller's struct in place of their parameter, so every
// field is followed in the caller.  Reverse mode against central
// differences and forward mode against reverse mode, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double run_b(particle *p, particle *p_b, int n, int nsteps, double dt, MPI_Comm comm, double run_bar)
// GEN: /* inlined: forces(p, f, n) */
// GEN: f[i].x += w * dx;
// GEN: /* inlined: kick(p, f, n, dt) */
// GEN: p[i].vx += dt_2 * f[i].x;
// GEN: double run_d(particle *p, particle *p_d, int n, int nsteps, double dt, MPI_Comm comm, double *run_dot)
// GEN: p_d[i].x += dt_3 * p_d[i].vx;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
  double x, y, vx, vy, m;
  int id;
} particle;
struct vec {
  double x, y;
};

static void forces(const particle *q, struct vec *f, int n) {
  for (int i = 0; i < n; i++) {
    f[i].x = 0.0;
    f[i].y = 0.0;
    for (int j = 0; j < n; j++) {
      if (j == i)
        continue;
      double dx = q[j].x - q[i].x, dy = q[j].y - q[i].y;
      double r2 = dx * dx + dy * dy + 0.1;
      double w = q[j].m / (r2 * sqrt(r2));
      f[i].x += w * dx;
      f[i].y += w * dy;
    }
  }
}

static void kick(particle *q, const struct vec *f, int n, double dt) {
  for (int i = 0; i < n; i++) {
    q[i].vx += dt * f[i].x;
    q[i].vy += dt * f[i].y;
  }
}

static void drift(particle *q, int n, double dt) {
  for (int i = 0; i < n; i++) {
    q[i].x += dt * q[i].vx;
    q[i].y += dt * q[i].vy;
  }
}

static double dot2(struct vec a, struct vec b) { return a.x * b.x + a.y * b.y; }

static void halve(double *v) { v[0] = 0.5 * v[0]; }

static double sumvec(const struct vec *w, int k) {
  double s = 0.0;
  for (int i = 0; i < k; i++)
    s += w[i].x * w[i].y;
  return s;
}

/* Kinetic energy plus the squared total momentum, whose fields are summed
 * over ranks in place through their addresses (`&mom.x`). */
static double energy(const particle *q, int n, MPI_Comm comm) {
  struct vec mom = {0.0, 0.0};
  double e = 0.0, tot;
  for (int i = 0; i < n; i++) {
    struct vec v = {q[i].vx, q[i].vy};
    e += 0.5 * q[i].m * dot2(v, v);
    mom.x += q[i].m * q[i].vx;
    mom.y += q[i].m * q[i].vy;
  }
  MPI_Allreduce(&e, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &mom.x, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &mom.y, 1, MPI_DOUBLE, MPI_SUM, comm);
  halve(&mom.y);
  return tot + 0.1 * (mom.x * mom.x + mom.y * mom.y);
}

#pragma mpiad differentiate wrt(p) output(p, return) varying(p) replicated(n, nsteps, dt)
#pragma mpiad differentiate forward wrt(p) output(p, return)
double run(particle *p, int n, int nsteps, double dt, MPI_Comm comm) {
  struct vec *f = malloc(n * sizeof *f);
  struct vec last[2]; /* a fixed array, passed to a pointer parameter */
  for (int t = 0; t < nsteps; t++) {
    forces(p, f, n);
    kick(p, f, n, dt);
    drift(p, n, dt);
    last[t % 2].x = p[0].x;
    last[t % 2].y = p[n - 1].y;
  }
  free(f);
  return energy(p, n, comm) + sumvec(last, 2);
}

#define NP 4
#define NSTEPS 3
static void unpack(const double *x, particle *p) {
  for (int i = 0; i < NP; i++) {
    p[i].x = x[5 * i];
    p[i].y = x[5 * i + 1];
    p[i].vx = x[5 * i + 2];
    p[i].vy = x[5 * i + 3];
    p[i].m = x[5 * i + 4];
    p[i].id = i;
  }
}
static void pack(const particle *p, double *x) {
  for (int i = 0; i < NP; i++) {
    x[5 * i] = p[i].x;
    x[5 * i + 1] = p[i].y;
    x[5 * i + 2] = p[i].vx;
    x[5 * i + 3] = p[i].vy;
    x[5 * i + 4] = p[i].m;
  }
}
/* run's value differs between ranks (sumvec reads this rank's particles):
 * the objective is its sum over ranks. */
static double run_here(const double *x) {
  particle p[NP];
  unpack(x, p);
  return run(p, NP, NSTEPS, 0.05, MPI_COMM_WORLD);
}
static double J(void *ctx) { return hx_sum(run_here(ctx)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[5 * NP], dx[5 * NP], xb[5 * NP];
  hx_rand(x, 5 * NP, 41, hx_rank_g, -1.0, 1.0);
  for (int i = 0; i < NP; i++)
    x[5 * i + 4] = 1.0 + 0.5 * x[5 * i + 4];
  hx_rand(dx, 5 * NP, 42, hx_rank_g, -1.0, 1.0);
  particle p[NP], pb[NP], pd[NP];
  unpack(x, p);
  memset(pb, 0, sizeof pb);
  double v = run_b(p, pb, NP, NSTEPS, 0.05, MPI_COMM_WORLD, 1.0);
  hx_tape("run_b");
  hx_check("run_b returns the primal value", v, run_here(x), 1e-14, 1e-300);
  pack(pb, xb);
  mpiad_input in = {x, dx, 5 * NP, 0};
  double *xbp[1] = {xb};
  hx_grad("run_b", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  unpack(x, p);
  unpack(dx, pd);
  double dot = 0.0;
  double val = run_d(p, pd, NP, NSTEPS, 0.05, MPI_COMM_WORLD, &dot);
  hx_check("run_d value", val, run_here(x), 1e-14, 1e-300);
  hx_check("run_d vs run_b", hx_sum(dot),
           mpiad_adjoint_directional(&in, xbp, 1, hx_comm_g), 1e-12, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
