// Pointers into an array of structs, as molecular-dynamics and n-body codes
// write them: `particle *pi = &p[i];` in the loop, `p + (i + 1) % n`, and
// `q = p`.  Each is followed as the element it points to (Frontend.cpp,
// findStructAliases): pi->v is p[i].v.  An integer field read through the
// pointer steers a branch.  Reverse mode against central differences and
// forward against reverse mode at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double chain_b(
// GEN: p[i].v += 0.1 * (p[(i + 1) % n].x - p[i].x) * p[(i + 1) % n].m;
// GEN: p_b[(i + 1) % n].x += mpiad_t{{[0-9]+}};
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct {
  double x, v, m;
  int id;
} particle;

#pragma mpiad differentiate wrt(p) output(p, return) varying(p) replicated(n)
#pragma mpiad differentiate forward wrt(p) output(p, return)
double chain(particle *p, int n, MPI_Comm comm) {
  double s = 0.0, tot;
  for (int i = 0; i < n; i++) {
    particle *pi = &p[i];
    const particle *pj = p + (i + 1) % n;
    pi->v += 0.1 * (pj->x - pi->x) * pj->m;
    if (pi->id % 2 == 0)
      s += pi->m * pi->v * pi->v;
    else
      s += sin(pi->x) * pj->v;
  }
  const particle *q = p;
  s += q[1].x * q->x;
  MPI_Allreduce(&s, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot;
}

#define NP 5
static void unpack(const double *x, particle *p) {
  for (int i = 0; i < NP; i++) {
    p[i].x = x[3 * i];
    p[i].v = x[3 * i + 1];
    p[i].m = x[3 * i + 2];
    p[i].id = i;
  }
}
static double J(void *ctx) {
  particle p[NP];
  unpack(ctx, p);
  return chain(p, NP, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[3 * NP], dx[3 * NP], xb[3 * NP];
  hx_rand(x, 3 * NP, 61, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, 3 * NP, 62, hx_rank_g, -1.0, 1.0);
  particle p[NP], pb[NP], pd[NP];
  unpack(x, p);
  memset(pb, 0, sizeof pb);
  double v = chain_b(p, pb, NP, MPI_COMM_WORLD, 1.0);
  hx_tape("chain_b");
  hx_check("chain_b returns the primal value", v, J(x), 1e-14, 1e-300);
  for (int i = 0; i < NP; i++) {
    xb[3 * i] = pb[i].x;
    xb[3 * i + 1] = pb[i].v;
    xb[3 * i + 2] = pb[i].m;
  }
  mpiad_input in = {x, dx, 3 * NP, 0};
  double *xbp[1] = {xb};
  hx_grad("chain_b", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  unpack(x, p);
  unpack(dx, pd);
  double dot = 0.0;
  chain_d(p, pd, NP, MPI_COMM_WORLD, &dot);
  hx_check("chain_d vs chain_b", dot,
           mpiad_adjoint_directional(&in, xbp, 1, hx_comm_g), 1e-12, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
