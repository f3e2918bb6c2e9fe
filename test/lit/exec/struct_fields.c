// Structs with float/double fields (Frontend's field views): an n-body
// style particle array `particle *p` as input and output, with an integer
// field that carries nothing; a malloc'd array of force structs written and
// read field by field; a struct local with an initialiser list that reads
// variables; a struct with an array field `double r[3]`; a struct reached
// through `->`; a nested struct field `q->c.w`.  Reverse mode against
// central differences and forward mode against reverse mode, at 1-4 ranks:
// the particles vary per rank, the objective is replicated after one
// MPI_Allreduce.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double steps_b(particle *p, particle *p_b, int n, int nsteps, double dt, MPI_Comm comm, double steps_bar)
// GEN: struct vec c_b = {0};
// GEN: f_b = calloc(1, n * sizeof *f);
// GEN: p_b[i].vx += dt * p_b[i].x;
// GEN: p_b[j].m +=
// GEN: double steps_d(particle *p, particle *p_d, int n, int nsteps, double dt, MPI_Comm comm, double *steps_dot)
// GEN: p_d[i].x += dt * p_d[i].vx;
// GEN: double shape_b(const struct body *b, struct body *b_b, int n, MPI_Comm comm, double shape_bar)
// GEN: b_b[i].r[k] +=
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
  double x, y, vx, vy, m;
  int id; /* carries no derivative; must survive every sweep */
} particle;
struct vec {
  double x, y;
};

/* A few explicit steps of softened gravity, then the kinetic energy plus
 * the squared centre of mass over all ranks' particles. */
#pragma mpiad differentiate wrt(p) output(p, return) varying(p) replicated(n, nsteps, dt)
#pragma mpiad differentiate forward wrt(p) output(p, return)
double steps(particle *p, int n, int nsteps, double dt, MPI_Comm comm) {
  struct vec *f = malloc(n * sizeof *f);
  for (int t = 0; t < nsteps; t++) {
    for (int i = 0; i < n; i++) {
      f[i].x = 0.0;
      f[i].y = 0.0;
    }
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        if (p[j].id == p[i].id)
          continue;
        double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
        double r2 = dx * dx + dy * dy + 0.1;
        double w = p[j].m / (r2 * sqrt(r2));
        f[i].x += w * dx;
        f[i].y += w * dy;
      }
    for (int i = 0; i < n; i++) {
      p[i].vx += dt * f[i].x;
      p[i].vy += dt * f[i].y;
      p[i].x += dt * p[i].vx;
      p[i].y += dt * p[i].vy;
    }
  }
  free(f);
  struct vec c = {0.5 * p[0].x, 0.0};
  double ke = 0.0, mt = 0.0;
  for (int i = 0; i < n; i++) {
    ke += 0.5 * p[i].m * (p[i].vx * p[i].vx + p[i].vy * p[i].vy);
    c.x += p[i].m * p[i].x;
    c.y += p[i].m * p[i].y;
    mt += p[i].m;
  }
  double loc[4] = {ke, c.x, c.y, mt}, tot[4];
  MPI_Allreduce(loc, tot, 4, MPI_DOUBLE, MPI_SUM, comm);
  return tot[0] + (tot[1] * tot[1] + tot[2] * tot[2]) / tot[3];
}

/* Array fields, nested structs and `->`. */
struct coef {
  double w;
  int k;
};
struct body {
  double r[3];
  struct coef c;
};
#pragma mpiad differentiate wrt(b) varying(b) replicated(n)
#pragma mpiad differentiate forward wrt(b)
double shape(const struct body *b, int n, MPI_Comm comm) {
  struct body g = {{0}, {1.0, 2}};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      g.r[k] += b[i].c.w * b[i].r[k] * b[i].r[k];
  double s = g.c.w * b->c.w * sin(b[n - 1].r[1]) + g.r[0] * g.r[1] +
             g.r[2] * g.c.k;
  double tot;
  MPI_Allreduce(&s, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot;
}

#define NP 5
#define NSTEPS 4
static void unpack(const double *x, particle *p) {
  for (int i = 0; i < NP; i++) {
    p[i].x = x[5 * i];
    p[i].y = x[5 * i + 1];
    p[i].vx = x[5 * i + 2];
    p[i].vy = x[5 * i + 3];
    p[i].m = x[5 * i + 4];
    p[i].id = 100 * hx_rank_g + i;
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
static double Jsteps(void *ctx) {
  particle p[NP];
  unpack(ctx, p);
  return steps(p, NP, NSTEPS, 0.05, MPI_COMM_WORLD);
}

static void body_unpack(const double *x, struct body *b) {
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++)
      b[i].r[k] = x[4 * i + k];
    b[i].c.w = x[4 * i + 3];
    b[i].c.k = i;
  }
}
static void body_pack(const struct body *b, double *x) {
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++)
      x[4 * i + k] = b[i].r[k];
    x[4 * i + 3] = b[i].c.w;
  }
}
static double Jshape(void *ctx) {
  struct body b[3];
  body_unpack(ctx, b);
  return shape(b, 3, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);

  /* Particles: positions and velocities in [-1, 1], masses in [0.5, 1.5]. */
  double x[5 * NP], dx[5 * NP], xb[5 * NP], xd[5 * NP];
  hx_rand(x, 5 * NP, 11, hx_rank_g, -1.0, 1.0);
  for (int i = 0; i < NP; i++)
    x[5 * i + 4] = 1.0 + 0.5 * x[5 * i + 4];
  hx_rand(dx, 5 * NP, 12, hx_rank_g, -1.0, 1.0);
  particle p[NP], pb[NP], pd[NP];
  unpack(x, p);
  memset(pb, 0, sizeof pb);
  pb[0].id = 7; /* the shadow's integer field is left alone */
  double v = steps_b(p, pb, NP, NSTEPS, 0.05, MPI_COMM_WORLD, 1.0);
  hx_tape("steps_b");
  hx_check("steps_b returns the primal value", v, Jsteps(x), 1e-14, 1e-300);
  /* F_b leaves the output as F does. */
  particle q[NP];
  unpack(x, q);
  steps(q, NP, NSTEPS, 0.05, MPI_COMM_WORLD);
  double after_b[5 * NP], after_f[5 * NP];
  pack(p, after_b);
  pack(q, after_f);
  hx_check_vec("steps_b leaves the particles as steps does", after_b, after_f,
               5 * NP, 1e-15, 1e-300);
  int ids = 1;
  for (int i = 0; i < NP; i++)
    ids &= p[i].id == 100 * hx_rank_g + i;
  hx_check("integer fields unchanged", ids, 1, 0.0, 0.5);
  hx_check("shadow's integer field unchanged", pb[0].id, 7, 0.0, 0.5);
  pack(pb, xb);
  mpiad_input in = {x, dx, 5 * NP, 0};
  double *xbp[1] = {xb};
  hx_grad("steps_b", Jsteps, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  /* Forward mode along dx. */
  unpack(x, p);
  unpack(dx, pd);
  double dot = 0.0;
  double val = steps_d(p, pd, NP, NSTEPS, 0.05, MPI_COMM_WORLD, &dot);
  hx_check("steps_d value", val, Jsteps(x), 1e-14, 1e-300);
  hx_check("steps_d vs steps_b", dot,
           mpiad_adjoint_directional(&in, xbp, 1, hx_comm_g), 1e-12, 1e-300);
  pack(pd, xd);
  (void)xd;

  /* Bodies. */
  double y[12], dy[12], yb[12];
  hx_rand(y, 12, 21, hx_rank_g, 0.2, 1.0);
  hx_rand(dy, 12, 22, hx_rank_g, -1.0, 1.0);
  struct body b[3], bb[3], bd[3];
  body_unpack(y, b);
  memset(bb, 0, sizeof bb);
  double sv = shape_b(b, bb, 3, MPI_COMM_WORLD, 1.0);
  hx_tape("shape_b");
  hx_check("shape_b returns the primal value", sv, Jshape(y), 1e-14, 1e-300);
  body_pack(bb, yb);
  mpiad_input in2 = {y, dy, 12, 0};
  double *ybp[1] = {yb};
  hx_grad("shape_b", Jshape, y, &in2, 1, ybp, 1e-6, 1e-7, 1e-10);
  body_unpack(dy, bd);
  double sdot = 0.0;
  shape_d(b, bd, 3, MPI_COMM_WORLD, &sdot);
  hx_check("shape_d vs shape_b", sdot,
           mpiad_adjoint_directional(&in2, ybp, 1, hx_comm_g), 1e-12, 1e-300);

  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
