/* Corpus program: a software pipeline (a 2-D wavefront sweep), in the shape
 * of the Parallel Research Kernels' MPI1/Synch_p2p/p2p.c
 * (github.com/ParRes/Kernels): the grid's columns are split over the ranks,
 * each rank waits for one value from its left neighbour per row (MPI_Recv
 * with the row as tag), updates its part of the row and passes its last value
 * on (MPI_Send). The corner value is then sent back to the root, as the PRK
 * does, and broadcast. Written for mpiad in that program's shape (its
 * idioms, not its text): an ARRAY(i, j) macro over a segment with a ghost
 * column, start[]/end[] tables of every rank's columns, an MPI_Status.
 * A smooth term (the sine) makes the objective nonlinear.
 * The only mpiad edit: the pragma before pipeline_corner.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/p2p_pipeline_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY(i, j) vector[i + 1 - start[my_ID] + (j) * segment_size]

#pragma mpiad differentiate wrt(vector) output(return, vector) varying(vector)
double pipeline_corner(double *vector, const int *start, const int *end, int m, int n,
                       int iterations, MPI_Comm comm) {
  int my_ID, Num_procs, root = 0, final, i, j, iter;
  int segment_size;
  double corner_val = 0.0;
  MPI_Status status;

  MPI_Comm_rank(comm, &my_ID);
  MPI_Comm_size(comm, &Num_procs);
  final = Num_procs - 1;
  segment_size = end[my_ID] - start[my_ID] + 2;

  for (iter = 0; iter < iterations; iter++) {
    for (j = 1; j < n; j++) {
      /* if I am not at the left boundary, I need to wait for my left neighbor
         to send data */
      if (my_ID > 0) {
        MPI_Recv(&(ARRAY(start[my_ID] - 1, j)), 1, MPI_DOUBLE, my_ID - 1, j, comm, &status);
      }
      for (i = (start[my_ID] > 1 ? start[my_ID] : 1); i <= end[my_ID]; i++) {
        ARRAY(i, j) = ARRAY(i - 1, j) + ARRAY(i, j - 1) - ARRAY(i - 1, j - 1) +
                      0.01 * sin(ARRAY(i, j - 1));
      }
      /* if I am not on the right boundary, send data to my right neighbor */
      if (my_ID != final) {
        MPI_Send(&(ARRAY(end[my_ID], j)), 1, MPI_DOUBLE, my_ID + 1, j, comm);
      }
    }
    /* copy top right corner value to bottom left corner to create dependency */
    if (Num_procs > 1) {
      if (my_ID == final) {
        corner_val = -ARRAY(end[my_ID], n - 1);
        MPI_Send(&corner_val, 1, MPI_DOUBLE, root, 888, comm);
      }
      if (my_ID == root) {
        MPI_Recv(&(ARRAY(0, 0)), 1, MPI_DOUBLE, final, 888, comm, &status);
      }
    } else
      ARRAY(0, 0) = -ARRAY(end[my_ID], n - 1);
  }
  if (my_ID == final)
    corner_val = ARRAY(end[my_ID], n - 1);
  MPI_Bcast(&corner_val, 1, MPI_DOUBLE, final, comm);
  return corner_val;
}

int main(int argc, char **argv) {
  int my_ID, Num_procs, m = 16, n = 8, i, j, leftover, width;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_ID);
  MPI_Comm_size(MPI_COMM_WORLD, &Num_procs);
  int *start = malloc(Num_procs * sizeof(int)), *end = malloc(Num_procs * sizeof(int));
  width = m / Num_procs;
  leftover = m % Num_procs;
  for (int id = 0; id < Num_procs; id++) {
    start[id] = id * width + (id < leftover ? id : leftover);
    end[id] = start[id] + width - 1 + (id < leftover ? 1 : 0);
  }
  int segment_size = end[my_ID] - start[my_ID] + 2;
  double *vector = calloc((size_t)segment_size * n, sizeof(double));
  for (j = 0; j < n; j++)
    if (start[my_ID] == 0)
      ARRAY(0, j) = (double)j;
  for (i = start[my_ID] - 1; i <= end[my_ID]; i++)
    ARRAY(i, 0) = (double)i;
  double corner = pipeline_corner(vector, start, end, m, n, 2, MPI_COMM_WORLD);
  if (my_ID == 0)
    printf("corner value %f\n", corner);
  free(vector);
  free(start);
  free(end);
  MPI_Finalize();
  return 0;
}
