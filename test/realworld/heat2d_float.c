/* Corpus program: an explicit 2-D heat equation step in single precision, in
 * the shape of LLNL's MPI tutorial example mpi_heat2D.c (Blaise Barney,
 * hpc-tutorials.llnl.gov/mpi): the diffusion constants in a global
 * `struct Parms`, an update() helper that indexes through pointer arithmetic
 * (*(u2+ix*ny+iy)), two planes of the grid swapped with iz = 1 - iz, and
 * row-block workers that exchange border rows with their neighbours by
 * blocking MPI_Send/MPI_Recv before each step. Written for mpiad in that
 * program's shape (its idioms, not its text); the tutorial's master/worker
 * set-up in main is left out, the time loop is the function heat_steps.
 * The only mpiad edit: the pragma before heat_steps.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/heat2d_float_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE 0
#define LTAG 2
#define RTAG 3

struct Parms {
  float cx;
  float cy;
} parms = {0.1, 0.1};

void update(int start, int end, int ny, float *u1, float *u2);

/* u holds two planes of (rows + 2) x ny points (a ghost row above and below
 * this rank's rows); left/right are the neighbour ranks or NONE - 1 when
 * there is none. Returns the heat left on the whole grid, sum of u^2. */
#pragma mpiad differentiate wrt(u) output(return, u) varying(u)
float heat_steps(float *u, int rows, int ny, int steps, int left, int right, MPI_Comm comm) {
  int iz = 0, it, ix, iy, start = 1, end = rows;
  int plane = (rows + 2) * ny;
  MPI_Status status;
  float local = 0.0f, total;

  for (it = 1; it <= steps; it++) {
    if (left >= 0) {
      MPI_Send(&u[iz * plane + 1 * ny], ny, MPI_FLOAT, left, RTAG, comm);
      MPI_Recv(&u[iz * plane + 0 * ny], ny, MPI_FLOAT, left, LTAG, comm, &status);
    }
    if (right >= 0) {
      MPI_Send(&u[iz * plane + rows * ny], ny, MPI_FLOAT, right, LTAG, comm);
      MPI_Recv(&u[iz * plane + (rows + 1) * ny], ny, MPI_FLOAT, right, RTAG, comm, &status);
    }
    /* Now call update to update the value of grid points */
    update(start, end, ny, &u[iz * plane], &u[(1 - iz) * plane]);
    iz = 1 - iz;
  }
  for (ix = start; ix <= end; ix++)
    for (iy = 0; iy < ny; iy++)
      local += u[iz * plane + ix * ny + iy] * u[iz * plane + ix * ny + iy];
  MPI_Allreduce(&local, &total, 1, MPI_FLOAT, MPI_SUM, comm);
  return total;
}

/* subroutine update */
void update(int start, int end, int ny, float *u1, float *u2) {
  int ix, iy;
  for (ix = start; ix <= end; ix++)
    for (iy = 1; iy <= ny - 2; iy++)
      *(u2 + ix * ny + iy) =
          *(u1 + ix * ny + iy) +
          parms.cx * (*(u1 + (ix + 1) * ny + iy) + *(u1 + (ix - 1) * ny + iy) -
                      2.0 * *(u1 + ix * ny + iy)) +
          parms.cy * (*(u1 + ix * ny + iy + 1) + *(u1 + ix * ny + iy - 1) -
                      2.0 * *(u1 + ix * ny + iy));
}

int main(void) {
  int taskid, numtasks, rows = 4, ny = 8;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &taskid);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  int left = taskid == 0 ? NONE - 1 : taskid - 1;
  int right = taskid == numtasks - 1 ? NONE - 1 : taskid + 1;
  float *u = calloc(2 * (rows + 2) * ny, sizeof(float));
  for (int ix = 1; ix <= rows; ix++)
    for (int iy = 0; iy < ny; iy++)
      u[ix * ny + iy] = (float)((taskid * rows + ix) * (ny - iy - 1) * iy);
  float heat = heat_steps(u, rows, ny, 10, left, right, MPI_COMM_WORLD);
  if (taskid == 0)
    printf("sum of u^2 after 10 steps: %f\n", heat);
  free(u);
  MPI_Finalize();
  return 0;
}
