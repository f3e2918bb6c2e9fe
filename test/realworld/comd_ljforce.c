/* Corpus program: the Lennard-Jones force kernel of a molecular dynamics
 * code in the shape of ECP's CoMD (src-mpi: ljForce.c with the types of
 * CoMDTypes.h and mytype.h; exmatex/CoMD 3d48396): all state behind one
 * `SimFlat *s` -- atoms in `s->atoms` (positions `real3 *r`, forces `f`,
 * energies `U`, global ids `gid`), link cells in `s->boxes` (`nAtoms` per
 * box, `nLocalBoxes` owned boxes followed by halo boxes), the potential in
 * `s->pot`, a `BasePotential *` cast to `LjPotential *` with a function
 * pointer `force`.  `zeroReal3` is a static helper of a header in CoMD
 * (here of this file), `getNeighborBoxes` a helper that fills an int array;
 * atoms sit in boxes at `iBox * MAXATOMS + ii`, local-local pairs are
 * counted once by global id, pairs with a halo atom count half.  The halo
 * atoms are copies of the neighbouring ranks' edge atoms, exchanged with
 * MPI_Sendrecv before the force call, as CoMD's haloExchange does.
 * Written for mpiad in that program's shape (its idioms, not its text).
 * The only mpiad edit: the pragma before ljForce, whose path names the
 * positions and their length.  Its adjoint returns d(ePotential)/d(r) in
 * s_b->atoms->r, s_b built by the generated ljForce_s_shadow_new.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/comd_ljforce_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <assert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef double real_t;
typedef real_t real3[3];
#define MAXATOMS 8
#define POT_SHIFT 1.0

typedef struct {
  int nLocal;    /* atoms owned by this rank */
  int nGlobal;
  int *gid;      /* global id of each atom */
  int *iSpecies;
  real3 *r;      /* positions */
  real3 *p;      /* momenta */
  real3 *f;      /* forces */
  real_t *U;     /* per-atom potential energy */
} Atoms;

typedef struct {
  int nLocalBoxes; /* boxes owned by this rank */
  int nHaloBoxes;  /* copies of the neighbours' edge boxes */
  int nTotalBoxes;
  int *nAtoms;     /* atoms per box */
} LinkCell;

struct SimFlatSt;

typedef struct BasePotentialSt {
  real_t cutoff;
  real_t mass;
  int (*force)(struct SimFlatSt *s);
} BasePotential;

typedef struct {
  real_t cutoff;
  real_t mass;
  int (*force)(struct SimFlatSt *s);
  real_t sigma;
  real_t epsilon;
} LjPotential;

typedef struct SimFlatSt {
  int nSteps;
  real_t dt;
  Atoms *atoms;
  LinkCell *boxes;
  BasePotential *pot;
  real_t ePotential;
  real_t eKinetic;
} SimFlat;

static void zeroReal3(real3 a) {
  a[0] = 0.0;
  a[1] = 0.0;
  a[2] = 0.0;
}

/* Boxes along x: local boxes 0..nLocal-1, halo box nLocal on the left,
 * nLocal+1 on the right.  Fills the neighbours of iBox (itself included). */
static int getNeighborBoxes(LinkCell *boxes, int iBox, int *nbrBoxes) {
  int n = 0;
  int left = iBox == 0 ? boxes->nLocalBoxes : iBox - 1;
  int right = iBox == boxes->nLocalBoxes - 1 ? boxes->nLocalBoxes + 1 : iBox + 1;
  nbrBoxes[n++] = left;
  nbrBoxes[n++] = iBox;
  nbrBoxes[n++] = right;
  return n;
}

#pragma mpiad differentiate wrt(s->atoms->r[s->boxes->nTotalBoxes * MAXATOMS]) output(s->ePotential)
int ljForce(SimFlat *s) {
  LjPotential *pot = (LjPotential *)s->pot;
  real_t sigma = pot->sigma;
  real_t epsilon = pot->epsilon;
  real_t rCut = pot->cutoff;
  real_t rCut2 = rCut * rCut;

  // zero forces and energy
  real_t ePot = 0.0;
  s->ePotential = 0.0;
  int fSize = s->boxes->nTotalBoxes * MAXATOMS;
  for (int ii = 0; ii < fSize; ++ii) {
    zeroReal3(s->atoms->f[ii]);
    s->atoms->U[ii] = 0.;
  }

  real_t s6 = sigma * sigma * sigma * sigma * sigma * sigma;
  real_t rCut6 = s6 / (rCut2 * rCut2 * rCut2);
  real_t eShift = POT_SHIFT * rCut6 * (rCut6 - 1.0);

  int nbrBoxes[27];
  // loop over local boxes
  for (int iBox = 0; iBox < s->boxes->nLocalBoxes; iBox++) {
    int nIBox = s->boxes->nAtoms[iBox];
    if (nIBox == 0) continue;
    int nNbrBoxes = getNeighborBoxes(s->boxes, iBox, nbrBoxes);
    // loop over neighbors of iBox
    for (int jTmp = 0; jTmp < nNbrBoxes; jTmp++) {
      int jBox = nbrBoxes[jTmp];
      assert(jBox >= 0);
      int nJBox = s->boxes->nAtoms[jBox];
      if (nJBox == 0) continue;
      // loop over atoms in iBox
      for (int iOff = iBox * MAXATOMS, ii = 0; ii < nIBox; ii++, iOff++) {
        int iId = s->atoms->gid[iOff];
        // loop over atoms in jBox
        for (int jOff = MAXATOMS * jBox, ij = 0; ij < nJBox; ij++, jOff++) {
          real_t dr[3];
          int jId = s->atoms->gid[jOff];
          if (jBox < s->boxes->nLocalBoxes && jId <= iId)
            continue; // don't double count local-local pairs.
          real_t r2 = 0.0;
          for (int m = 0; m < 3; m++) {
            dr[m] = s->atoms->r[iOff][m] - s->atoms->r[jOff][m];
            r2 += dr[m] * dr[m];
          }
          if (r2 > rCut2) continue;
          // from this point on r actually refers to 1.0/r
          r2 = 1.0 / r2;
          real_t r6 = s6 * (r2 * r2 * r2);
          real_t eLocal = r6 * (r6 - 1.0) - eShift;
          s->atoms->U[iOff] += 0.5 * eLocal;
          s->atoms->U[jOff] += 0.5 * eLocal;
          // energy contribution: half for a pair with a halo atom
          if (jBox < s->boxes->nLocalBoxes)
            ePot += eLocal;
          else
            ePot += 0.5 * eLocal;
          // different formulation to avoid sqrt computation
          real_t fr = -4.0 * epsilon * r6 * r2 * (12.0 * r6 - 6.0);
          for (int m = 0; m < 3; m++) {
            s->atoms->f[iOff][m] -= dr[m] * fr;
            s->atoms->f[jOff][m] += dr[m] * fr;
          }
        } // loop over atoms in jBox
      } // loop over atoms in iBox
    } // loop over neighbor boxes
  } // loop over local boxes in system

  ePot = ePot * 4.0 * epsilon;
  s->ePotential = ePot;
  return 0;
}

/* The halo exchange of the program's time step: the edge boxes' atoms
 * copied into the neighbours' halo boxes, shifted by the period in x. */
void haloExchange(SimFlat *s, real_t period, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int nL = s->boxes->nLocalBoxes;
  real_t shiftL = rank == 0 ? -period : 0.0;
  real_t shiftR = rank == size - 1 ? period : 0.0;
  /* my last box goes to the right neighbour's left halo (box nL) */
  MPI_Sendrecv(s->atoms->r[(nL - 1) * MAXATOMS], 3 * MAXATOMS, MPI_DOUBLE, right, 1,
               s->atoms->r[nL * MAXATOMS], 3 * MAXATOMS, MPI_DOUBLE, left, 1, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&s->atoms->gid[(nL - 1) * MAXATOMS], MAXATOMS, MPI_INT, right, 2,
               &s->atoms->gid[nL * MAXATOMS], MAXATOMS, MPI_INT, left, 2, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&s->boxes->nAtoms[nL - 1], 1, MPI_INT, right, 3,
               &s->boxes->nAtoms[nL], 1, MPI_INT, left, 3, comm, MPI_STATUS_IGNORE);
  /* my first box goes to the left neighbour's right halo (box nL + 1) */
  MPI_Sendrecv(s->atoms->r[0], 3 * MAXATOMS, MPI_DOUBLE, left, 4,
               s->atoms->r[(nL + 1) * MAXATOMS], 3 * MAXATOMS, MPI_DOUBLE, right, 4, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&s->atoms->gid[0], MAXATOMS, MPI_INT, left, 5,
               &s->atoms->gid[(nL + 1) * MAXATOMS], MAXATOMS, MPI_INT, right, 5, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&s->boxes->nAtoms[0], 1, MPI_INT, left, 6,
               &s->boxes->nAtoms[nL + 1], 1, MPI_INT, right, 6, comm, MPI_STATUS_IGNORE);
  for (int k = 0; k < MAXATOMS; k++) {
    s->atoms->r[nL * MAXATOMS + k][0] += shiftL;
    s->atoms->r[(nL + 1) * MAXATOMS + k][0] += shiftR;
  }
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return 0;
}
