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
