// State behind pointer fields, as CoMD keeps it (issue 40): `Sim *s` with
// `s->atoms->r`, `s->atoms->q`, `s->atoms->U` (pointers to float data in a
// struct reached through a pointer field), `s->prm->k` (a double field
// behind a pointer field), `s->eLocal` (a field of s), ints read from
// `s->atoms->n`, a local `double (*r)[3] = s->atoms->r` aliasing the
// positions and a local `Atoms *atoms = s->atoms` (CoMD's eam.c style).  The clauses name paths with their lengths; F_b takes
// `Sim *s_b`, built here by the generated energy_s_shadow_new.  The energy
// is summed over ranks with MPI_Allreduce (the return is counted once),
// U and eLocal are per-rank outputs.  Reverse mode against central
// differences and the dot-product test, forward mode against reverse mode,
// the seeds of the outputs consumed, 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: independents: s->atoms->r, s->atoms->q, s->prm->k
// GEN: dependents:   return, s->atoms->U, s->eLocal (replicated: counted once)
// GEN: double energy_b(Sim *s, Sim *s_b, MPI_Comm comm, double energy_bar)
// GEN: r_b = s_b->atoms->r;
// GEN: s_b->prm->k += {{.*}}s->atoms->q[i];
// GEN: Sim *energy_s_shadow_new(const Sim *s) {
// GEN-NEXT: (void)s;
// GEN-NEXT: Sim *s_b = mpiad_alloc_zeroed(1, sizeof *s_b, "energy_s_shadow_new", "s_b", MPI_COMM_WORLD);
// GEN-NEXT: s_b->atoms = mpiad_alloc_zeroed(1, sizeof *s_b->atoms,
// GEN-NEXT: s_b->atoms->r = mpiad_alloc_zeroed(s->atoms->n, sizeof *s_b->atoms->r,
// GEN: void energy_s_shadow_free(Sim *s_b) {
// GEN: double energy_d(Sim *s, Sim *s_d, MPI_Comm comm, double *energy_dot)
// GEN: s_d->prm->k * s->atoms->q[i]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

typedef struct {
  int n;          /* atoms on this rank */
  int *id;        /* global ids (ints: read from s, never shadowed) */
  double (*r)[3]; /* positions */
  double *q;      /* charges */
  double *U;      /* per-atom energy (output) */
} Atoms;
typedef struct {
  double k;  /* coupling */
  double rc; /* unused here */
} Params;
typedef struct {
  Atoms *atoms;
  Params *prm;
  double eLocal; /* this rank's energy (output) */
} Sim;

#pragma mpiad differentiate wrt(s->atoms->r[s->atoms->n], s->atoms->q[s->atoms->n], s->prm->k) output(return, s->atoms->U[s->atoms->n], s->eLocal) varying(s)
#pragma mpiad differentiate forward wrt(s->atoms->r, s->atoms->q, s->prm->k) output(return, s->atoms->U, s->eLocal) varying(s)
double energy(Sim *s, MPI_Comm comm) {
  double e = 0.0;
  double (*r)[3] = s->atoms->r;
  Atoms *atoms = s->atoms; /* each use is s->atoms */
  for (int i = 0; i < atoms->n; i++)
    atoms->U[i] = 0.0;
  for (int i = 0; i < s->atoms->n; i++)
    for (int j = 0; j < i; j++) {
      if (s->atoms->id[i] % 5 == s->atoms->id[j] % 5)
        continue;
      double d2 = 0.0;
      for (int m = 0; m < 3; m++)
        d2 += (r[i][m] - r[j][m]) * (r[i][m] - r[j][m]);
      double u = s->prm->k * s->atoms->q[i] * s->atoms->q[j] / (1.0 + d2);
      atoms->U[i] += 0.5 * u;
      s->atoms->U[j] += 0.5 * u;
      e += u;
    }
  s->eLocal = e;
  double tot = 0.0;
  MPI_Allreduce(&e, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return tot;
}

enum { N = 7 };
static Sim sim;
static double wU[N], wE;

/* The global objective: the total energy plus, summed over ranks, the
 * weighted per-atom energies and the rank's energy. */
static double J(void *ctx) {
  (void)ctx;
  double tot = energy(&sim, MPI_COMM_WORLD), mine = wE * sim.eLocal;
  for (int i = 0; i < sim.atoms->n; i++)
    mine += wU[i] * sim.atoms->U[i];
  return tot + hx_sum(mine);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  Atoms atoms;
  Params prm = {0.8, 2.5};
  atoms.n = N - hx_rank_g % 2; /* the ranks hold different numbers */
  atoms.id = malloc(N * sizeof *atoms.id);
  atoms.r = malloc(N * sizeof *atoms.r);
  atoms.q = malloc(N * sizeof *atoms.q);
  atoms.U = malloc(N * sizeof *atoms.U);
  for (int i = 0; i < N; i++)
    atoms.id[i] = 3 * i + hx_rank_g;
  hx_rand(&atoms.r[0][0], 3 * N, 11, hx_rank_g, -1.0, 1.0);
  hx_rand(atoms.q, N, 12, hx_rank_g, 0.5, 1.5);
  hx_rand(wU, N, 13, hx_rank_g, -1.0, 1.0);
  wE = 0.3 + 0.1 * hx_rank_g;
  sim.atoms = &atoms;
  sim.prm = &prm;
  sim.eLocal = 0.0;

  Sim *sb = energy_s_shadow_new(&sim);
  memcpy(sb->atoms->U, wU, (size_t)atoms.n * sizeof *wU);
  sb->eLocal = wE;
  double v = energy_b(&sim, sb, MPI_COMM_WORLD, 1.0);
  hx_check("value", v, energy(&sim, MPI_COMM_WORLD), 1e-14, 1e-300);
  hx_tape("energy_b");
  double seeds = fabs(sb->eLocal);
  for (int i = 0; i < atoms.n; i++)
    seeds += fabs(sb->atoms->U[i]);
  hx_check_each("output seeds consumed", seeds, 0.0, 1.0, 1e-14);

  /* Along a direction in r, q and k together. */
  double dr[N][3], dq[N], dk;
  hx_rand(&dr[0][0], 3 * N, 21, hx_rank_g, -1.0, 1.0);
  hx_rand(dq, N, 22, hx_rank_g, -1.0, 1.0);
  dk = 0.5 - 0.2 * hx_rank_g;
  mpiad_input in[3] = {{&atoms.r[0][0], &dr[0][0], 3 * (size_t)atoms.n, 0},
                       {atoms.q, dq, (size_t)atoms.n, 0},
                       {&prm.k, &dk, 1, 0}};
  double *xb[3] = {&sb->atoms->r[0][0], sb->atoms->q, &sb->prm->k};
  hx_grad("energy", J, NULL, in, 3, xb, 1e-6, 1e-7, 1e-9);

  /* Forward mode along the same direction: the tangent of the objective. */
  Sim *sd = energy_s_shadow_new(&sim);
  memcpy(sd->atoms->r, dr, (size_t)atoms.n * sizeof *dr);
  memcpy(sd->atoms->q, dq, (size_t)atoms.n * sizeof *dq);
  sd->prm->k = dk;
  double dot = 0.0;
  energy_d(&sim, sd, MPI_COMM_WORLD, &dot);
  double mine = wE * sd->eLocal;
  for (int i = 0; i < atoms.n; i++)
    mine += wU[i] * sd->atoms->U[i];
  hx_check("forward vs reverse mode", dot + hx_sum(mine),
           mpiad_adjoint_directional(in, xb, 3, MPI_COMM_WORLD), 1e-12,
           1e-300);
  energy_s_shadow_free(sd);
  energy_s_shadow_free(sb);
  free(atoms.id);
  free(atoms.r);
  free(atoms.q);
  free(atoms.U);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
