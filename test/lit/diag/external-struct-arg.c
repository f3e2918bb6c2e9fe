// A struct whose fields carry derivatives passed to a function of another
// file, as the CSC heat-equation solver's main loop does
// (`evolve(&current, &previous, a, dt)`, `average(&previous)`, with
// `field { ...; double dx, dy; double *data; }`): the adjoint came out
// zero, silently, since the calls were taken to read nothing that carries
// derivatives (found on csc-training/summerschool 56c1a75,
// mpi/heat-equation/c/solution).  Each such call is now a located error.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

typedef struct {
  int nx, ny;
  double dx, dy;
  double *data;
} field;

void evolve(field *curr, field *prev, double a, double dt); /* core.c */
double average(field *temperature);                         /* utilities.c */

#pragma mpiad differentiate wrt(previous) output(avg) varying(previous)
void run(field *current, field *previous, int nsteps, double *avg) {
  for (int iter = 1; iter <= nsteps; iter++)
    // CHECK: external-struct-arg.c:[[@LINE+1]]:5: error: external function 'evolve' is passed 'previous', a struct whose fields (or the data behind its pointer fields) carry derivatives, and mpiad cannot see what it reads or writes there: define the function in this file, or add a rule (docs/rules.md): 'inactive evolve' if it only reads the data
    evolve(current, previous, 0.5, 0.01);
  // CHECK: external-struct-arg.c:[[@LINE+1]]:12: error: external function 'average' is passed 'previous', a struct whose fields
  avg[0] = average(previous);
}

// The same through pointer fields (CoMD's ljForce calls getNeighborBoxes,
// of linkCells.c, with `s->boxes`, a struct of ints: fine); a struct whose
// pointer fields lead to data that carries derivatives is refused.
typedef struct { int nLocal; double (*r)[3]; } Atoms;
typedef struct { int nBoxes; int *nAtoms; } LinkCell;
typedef struct { Atoms *atoms; LinkCell *boxes; double e; } Sim;
int getNeighborBoxes(LinkCell *boxes, int iBox, int *nbrBoxes); /* linkCells.c */
void sortAtoms(Atoms *atoms);                                 /* elsewhere */

#pragma mpiad differentiate wrt(s->atoms->r) output(s->e)
int energy(Sim *s) {
  int nbr[27];
  double e = 0.0;
  for (int b = 0; b < s->boxes->nBoxes; b++) {
    int n = getNeighborBoxes(s->boxes, b, nbr);
    for (int k = 0; k < n; k++)
      e += s->atoms->r[nbr[k]][0] * s->atoms->r[nbr[k]][1];
  }
  // CHECK: external-struct-arg.c:[[@LINE+1]]:3: error: external function 'sortAtoms' is passed 's->atoms', a struct whose fields
  sortAtoms(s->atoms);
  s->e = e;
  return 0;
}
