/* Corpus program: the concurrent wave equation on a vibrating string, in the
 * shape of LLNL's MPI tutorial example mpi_wave.c (Blaise Barney, adapted
 * from Ros Leibensperger, Cornell Theory Center; converted to MPI by George
 * L. Gusciora, MHPCC; after Fox et al., Solving Problems on Concurrent
 * Processors, 1988): the state in global arrays values/oldval/newval of
 * TPOINTS + 2 points and global ints taskid, numtasks, nsteps, npoints and
 * first; tags in global ints RtoL and LtoR; init_line() deals the points
 * out with `for (i = 0, k = 0; i < numtasks; i++)` and
 * `npts = (i < nleft) ? nmin + 1 : nmin`, and only the owner fills its
 * points (`for (j = 1; j <= npts; j++, k++)`); update(left, right) exchanges
 * one point with each neighbour by blocking MPI_Send then MPI_Recv, guarded
 * by the global index (`if (first != 1)`, `if (first + npoints - 1 !=
 * TPOINTS)`), pins the string's two global ends to zero, steps the
 * three-level scheme and rotates the levels with two copies in one loop
 * (`oldval[j] = values[j]; values[j] = newval[j];`). Written for mpiad in
 * that program's shape (its idioms, not its text); the tutorial reads
 * nsteps from the terminal and sends the amplitudes to the master for
 * drawing, here the program computes the string's energy after nsteps
 * steps as a function of its initial amplitude (final_energy, the function
 * a user would add to study the sensitivity of the string). The only mpiad
 * edit: the pragma before final_energy.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main -Wall -Wextra -Werror %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/wave1d_string_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include "mpi.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MASTER 0
#define TPOINTS 40
#define MAXSTEPS 10000
#define PI 3.14159265

int RtoL = 10;
int LtoR = 20;

void init_line(void);
void update(int left, int right);

int taskid,   /* task ID */
    numtasks, /* number of processes */
    nsteps,   /* number of time steps */
    npoints,  /* number of points handled by this processor */
    first;    /* index of 1st point handled by this processor */
double values[TPOINTS + 2], /* values at time t */
    oldval[TPOINTS + 2],    /* values at time (t-dt) */
    newval[TPOINTS + 2];    /* values at time (t+dt) */

/* All processes initialize points on line */
void init_line(void) {
  int nmin, nleft, npts, i, j, k;
  double x, fac;

  /* calculate initial values based on sine curve */
  nmin = TPOINTS / numtasks;
  nleft = TPOINTS % numtasks;
  fac = 2.0 * PI;
  for (i = 0, k = 0; i < numtasks; i++) {
    npts = (i < nleft) ? nmin + 1 : nmin;
    if (taskid == i) {
      first = k + 1;
      npoints = npts;
      for (j = 1; j <= npts; j++, k++) {
        x = (double)k / (double)(TPOINTS - 1);
        values[j] = sin(fac * x);
      }
    } else
      k += npts;
  }
  for (i = 1; i <= npoints; i++)
    oldval[i] = values[i];
}

/* All processes update their points a specified number of times */
void update(int left, int right) {
  int i, j;
  double dtime, c, dx, tau, sqtau;
  MPI_Status status;

  dtime = 0.3;
  c = 1.0;
  dx = 1.0;
  tau = (c * dtime / dx);
  sqtau = tau * tau;

  /* Update values for each point along string */
  for (i = 1; i <= nsteps; i++) {
    /* Exchange data with "left-hand" neighbor */
    if (first != 1) {
      MPI_Send(&values[1], 1, MPI_DOUBLE, left, RtoL, MPI_COMM_WORLD);
      MPI_Recv(&values[0], 1, MPI_DOUBLE, left, LtoR, MPI_COMM_WORLD, &status);
    }
    /* Exchange data with "right-hand" neighbor */
    if (first + npoints - 1 != TPOINTS) {
      MPI_Send(&values[npoints], 1, MPI_DOUBLE, right, LtoR, MPI_COMM_WORLD);
      MPI_Recv(&values[npoints + 1], 1, MPI_DOUBLE, right, RtoL,
               MPI_COMM_WORLD, &status);
    }
    /* Update points along line */
    for (j = 1; j <= npoints; j++) {
      /* Global endpoints */
      if ((first + j - 1 == 1) || (first + j - 1 == TPOINTS))
        newval[j] = 0.0;
      else
        /* Use wave equation to update points */
        newval[j] = (2.0 * values[j]) - oldval[j] +
                    (sqtau * (values[j - 1] - (2.0 * values[j]) + values[j + 1]));
    }
    for (j = 1; j <= npoints; j++) {
      oldval[j] = values[j];
      values[j] = newval[j];
    }
  }
}

/* The energy of the string after nsteps steps, sum of the squared
 * amplitudes over all points, from the initial amplitude amp[0..npoints)
 * of this task's points (the string starts at rest: oldval = values). */
#pragma mpiad differentiate wrt(amp) varying(amp, left, right)
double final_energy(const double *amp, int left, int right) {
  int j;
  double local = 0.0, total;

  for (j = 1; j <= npoints; j++) {
    values[j] = amp[j - 1];
    oldval[j] = values[j];
  }
  update(left, right);
  for (j = 1; j <= npoints; j++)
    local += values[j] * values[j];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char *argv[]) {
  int left, right, j;
  double amp[TPOINTS], e;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &taskid);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);

  /* Determine left and right neighbors */
  if (taskid == numtasks - 1)
    right = 0;
  else
    right = taskid + 1;
  if (taskid == 0)
    left = numtasks - 1;
  else
    left = taskid - 1;

  nsteps = argc > 1 ? atoi(argv[1]) : 100;
  if ((nsteps < 1) || (nsteps > MAXSTEPS)) {
    if (taskid == MASTER)
      printf("Enter value between 1 and %d\n", MAXSTEPS);
    MPI_Finalize();
    return 1;
  }
  init_line();
  for (j = 1; j <= npoints; j++)
    amp[j - 1] = values[j];
  e = final_energy(amp, left, right);
  if (taskid == MASTER)
    printf("energy of the string after %d steps: %.6f\n", nsteps, e);
  MPI_Finalize();
  return 0;
}
