/* Gradient check of comd_ljforce.c: each rank owns 3 boxes of 6 atoms on a
 * jittered lattice along x, with two halo boxes filled by the program's
 * haloExchange (periodic in x).  The rank's positions, halo copies
 * included, are its inputs; the objective is the sum over ranks of
 * ePotential.  The adjoint from ljForce_b (s_b from the generated
 * ljForce_s_shadow_new) against central differences along one random
 * direction, and against an independent identity: the energy depends on
 * differences of positions only, so on every rank the adjoint summed over
 * the atoms is zero in each direction. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

typedef double real_t;
typedef real_t real3[3];
#define MAXATOMS 8
typedef struct { int nLocal, nGlobal; int *gid, *iSpecies; real3 *r, *p, *f; real_t *U; } Atoms;
typedef struct { int nLocalBoxes, nHaloBoxes, nTotalBoxes; int *nAtoms; } LinkCell;
struct SimFlatSt;
typedef struct BasePotentialSt { real_t cutoff, mass; int (*force)(struct SimFlatSt *s); } BasePotential;
typedef struct { real_t cutoff, mass; int (*force)(struct SimFlatSt *s); real_t sigma, epsilon; } LjPotential;
typedef struct SimFlatSt { int nSteps; real_t dt; Atoms *atoms; LinkCell *boxes; BasePotential *pot; real_t ePotential, eKinetic; } SimFlat;

int ljForce(SimFlat *s);
int ljForce_b(SimFlat *s, SimFlat *s_b);
SimFlat *ljForce_s_shadow_new(const SimFlat *s);
void ljForce_s_shadow_free(SimFlat *s_b);
void haloExchange(SimFlat *s, real_t period, MPI_Comm comm);

enum { NL = 3, NB = NL + 2, PER_BOX = 6 };
static const double width = 2.6;

static double J(void *ctx) {
  SimFlat *s = ctx;
  ljForce(s);
  return hx_sum(s->ePotential);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  LjPotential pot = {2.5, 1.0, ljForce, 1.0, 0.2};
  LinkCell boxes = {NL, 2, NB, calloc(NB, sizeof(int))};
  Atoms atoms;
  memset(&atoms, 0, sizeof atoms);
  atoms.gid = calloc(NB * MAXATOMS, sizeof(int));
  atoms.r = calloc(NB * MAXATOMS, sizeof(real3));
  atoms.f = calloc(NB * MAXATOMS, sizeof(real3));
  atoms.U = calloc(NB * MAXATOMS, sizeof(real_t));
  SimFlat sim = {0, 0.0, &atoms, &boxes, (BasePotential *)&pot, 0.0, 0.0};
  double jit[NL * PER_BOX * 3];
  hx_rand(jit, NL * PER_BOX * 3, 5, hx_rank_g, -0.12, 0.12);
  for (int b = 0; b < NL; b++) {
    boxes.nAtoms[b] = PER_BOX;
    for (int k = 0; k < PER_BOX; k++) {
      int i = b * MAXATOMS + k, q = (b * PER_BOX + k) * 3;
      atoms.gid[i] = (hx_rank_g * NL + b) * MAXATOMS + k;
      atoms.r[i][0] = (hx_rank_g * NL + b) * width + (k % 2 ? 1.95 : 0.65) + jit[q];
      atoms.r[i][1] = 1.1 * (k / 2 % 3) + jit[q + 1];
      atoms.r[i][2] = 1.1 * (k / 2 % 2) + jit[q + 2];
    }
  }
  haloExchange(&sim, hx_size_g * NL * width, MPI_COMM_WORLD);
  atoms.nLocal = NL * PER_BOX;

  SimFlat *sb = ljForce_s_shadow_new(&sim);
  sb->ePotential = 1.0;
  ljForce_b(&sim, sb);
  hx_tape("ljForce_b");
  hx_check_each("ePotential seed consumed", sb->ePotential, 0.0, 1.0, 1e-14);

  size_t n = 3 * NB * MAXATOMS;
  double *dr = malloc(n * sizeof *dr);
  hx_rand(dr, n, 7, hx_rank_g, -1.0, 1.0);
  mpiad_input in = {&atoms.r[0][0], dr, n, 0};
  double *xb[1] = {&sb->atoms->r[0][0]};
  hx_grad("d(ePotential)/d(r)", J, &sim, &in, 1, xb, 1e-6, 1e-6, 1e-9);

  double scale = 0.0, sum[3] = {0, 0, 0};
  for (int i = 0; i < NB * MAXATOMS; i++)
    for (int m = 0; m < 3; m++) {
      sum[m] += sb->atoms->r[i][m];
      scale = fmax(scale, fabs(sb->atoms->r[i][m]));
    }
  for (int m = 0; m < 3; m++)
    hx_check_each("translation invariance (sum of the adjoint)", sum[m] / scale,
                  0.0, 1.0, 1e-12);
  ljForce_s_shadow_free(sb);
  free(dr);
  free(atoms.gid);
  free(atoms.r);
  free(atoms.f);
  free(atoms.U);
  free(boxes.nAtoms);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
