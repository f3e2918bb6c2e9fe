/* Corpus program: the pipelined wavefront of the Parallel Research Kernels'
 * MPI1/Synch_p2p/p2p.c (github.com/ParRes/Kernels) as that program is
 * written: everything in main, every variable declared at its top (C89),
 * the grid read and written through `ARRAY(i, j)` with main's counters,
 * one MPI_Recv/MPI_Send per row (or per group of `grp` rows, through inbuf
 * and outbuf carved from one allocation), a timer started after a barrier
 * in the first iteration, and the corner value sent back to rank 0 through
 * `corner_val`, which main reuses after the loop for the verification.
 * Written for mpiad in that program's shape (its idioms, not its text);
 * p2p_pipeline.c is the same kernel as a function.
 * The mpiad edits: braces around the time loop and the pragma in front of
 * them.  The block shares i, j, jj, jjsize and corner_val with the rest of
 * main: the outlined function declares its own (their values neither enter
 * nor leave the block), and the scratch buffers are named with their length.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/p2p_main_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 * RUN: %mpiad-emit -Dmain=program_main %s -o - | sed '/^ \* [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
 * GEN: static void mpiad_block_L{{[0-9]+}}(
 * GEN-NEXT: #line
 * GEN-NEXT: { int iter; int j; int i; int jjsize; int jj; double corner_val;
 * GEN: void p2p_b(int iterations, double *local_pipeline_time, int grp, long n, int my_ID, double *vector, double *vector_b, long start, long segment_size, long end, int Num_procs, double *inbuf, double *outbuf, int final, int root)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY(i, j) vector[i + 1 + (j) * (segment_size + 1)]
#define MIN(x, y) ((x) < (y) ? (x) : (y))

int main(int argc, char **argv) {
  int my_ID;             /* MPI rank */
  int root = 0, final;   /* rank 0 and the rank that verifies the result */
  long m, n;             /* grid dimensions */
  double local_pipeline_time, pipeline_time;
  double epsilon = 1.e-8;
  int i, j, jj, iter, jjsize, iterations, grp, leftover, error = 0;
  long start, end, segment_size, total_length;
  int Num_procs;
  double corner_val;
  double *vector, *inbuf, *outbuf;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_ID);
  MPI_Comm_size(MPI_COMM_WORLD, &Num_procs);
  final = Num_procs - 1;
  if (my_ID == root) {
    if (argc != 4 && argc != 5) {
      printf("Usage: %s <#iterations> <1st array dimension> <2nd array dimension> [group factor]\n", *argv);
      error = 1;
      goto ENDOFTESTS;
    }
    iterations = atoi(argv[1]);
    m = atol(argv[2]);
    n = atol(argv[3]);
    grp = argc == 5 ? atoi(argv[4]) : 1;
    if (grp < 1)
      grp = 1;
    else if (grp >= n)
      grp = n - 1;
  ENDOFTESTS:;
  }
  MPI_Bcast(&error, 1, MPI_INT, root, MPI_COMM_WORLD);
  if (error) {
    MPI_Finalize();
    return 1;
  }
  MPI_Bcast(&m, 1, MPI_LONG, root, MPI_COMM_WORLD);
  MPI_Bcast(&n, 1, MPI_LONG, root, MPI_COMM_WORLD);
  MPI_Bcast(&grp, 1, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Bcast(&iterations, 1, MPI_INT, root, MPI_COMM_WORLD);

  segment_size = m / Num_procs;
  leftover = m % Num_procs;
  if (my_ID < leftover) {
    start = (segment_size + 1) * my_ID;
    end = start + segment_size;
  } else {
    start = (segment_size + 1) * leftover + segment_size * (my_ID - leftover);
    end = start + segment_size - 1;
  }
  segment_size = end - start + 1;
  total_length = ((end - start + 1) + 1) * n;
  vector = (double *)malloc(total_length * sizeof(double));
  inbuf = (double *)malloc(2 * sizeof(double) * (grp));
  outbuf = inbuf + grp;

  for (j = 0; j < n; j++)
    for (i = start - 1; i <= end; i++)
      ARRAY(i - start, j) = 0.0;
  if (my_ID == 0)
    for (j = 0; j < n; j++)
      ARRAY(0, j) = (double)j;
  for (i = start - 1; i <= end; i++)
    ARRAY(i - start, 0) = (double)i;
  if (my_ID == 0)
    start = 1;
  else
    start = 0;
  end = segment_size - 1;

#pragma mpiad differentiate wrt(vector) output(vector) varying(vector) scratch(inbuf[grp], outbuf[grp]) name(p2p_b)
  {
  for (iter = 0; iter <= iterations; iter++) {
    if (iter == 1) {
      MPI_Barrier(MPI_COMM_WORLD);
      local_pipeline_time = MPI_Wtime();
    }
    if (grp == 1)
      for (j = 1; j < n; j++) {
        if (my_ID > 0)
          MPI_Recv(&(ARRAY(start - 1, j)), 1, MPI_DOUBLE, my_ID - 1, j, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        for (i = start; i <= end; i++)
          ARRAY(i, j) = ARRAY(i - 1, j) + ARRAY(i, j - 1) - ARRAY(i - 1, j - 1);
        if (my_ID < Num_procs - 1)
          MPI_Send(&(ARRAY(end, j)), 1, MPI_DOUBLE, my_ID + 1, j, MPI_COMM_WORLD);
      }
    else
      for (j = 1; j < n; j += grp) {
        jjsize = MIN(grp, n - j);
        if (my_ID > 0) {
          MPI_Recv(inbuf, jjsize, MPI_DOUBLE, my_ID - 1, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          for (jj = 0; jj < jjsize; jj++)
            ARRAY(start - 1, jj + j) = inbuf[jj];
        }
        for (jj = 0; jj < jjsize; jj++)
          for (i = start; i <= end; i++)
            ARRAY(i, jj + j) = ARRAY(i - 1, jj + j) + ARRAY(i, jj + j - 1) - ARRAY(i - 1, jj + j - 1);
        if (my_ID < Num_procs - 1) {
          for (jj = 0; jj < jjsize; jj++)
            outbuf[jj] = ARRAY(end, jj + j);
          MPI_Send(outbuf, jjsize, MPI_DOUBLE, my_ID + 1, j, MPI_COMM_WORLD);
        }
      }
    /* copy the top right corner value to the bottom left corner */
    if (Num_procs > 1) {
      if (my_ID == final) {
        corner_val = -ARRAY(end, n - 1);
        MPI_Send(&corner_val, 1, MPI_DOUBLE, root, 888, MPI_COMM_WORLD);
      }
      if (my_ID == root)
        MPI_Recv(&(ARRAY(0, 0)), 1, MPI_DOUBLE, final, 888, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
      ARRAY(0, 0) = -ARRAY(end, n - 1);
  }
  local_pipeline_time = MPI_Wtime() - local_pipeline_time;
  }
  MPI_Reduce(&local_pipeline_time, &pipeline_time, 1, MPI_DOUBLE, MPI_MAX, final, MPI_COMM_WORLD);

  if (my_ID == final) {
    corner_val = (double)((iterations + 1) * (m + n - 2));
    if (fabs(ARRAY(end, n - 1) - corner_val) / corner_val >= epsilon) {
      printf("ERROR: checksum %lf does not match verification value %lf\n", ARRAY(end, n - 1),
             corner_val);
      error = 1;
    } else {
      printf("Solution validates; verification value = %lf\n", corner_val);
      printf("Rate (MFlops/s): %lf\n", 1.0e-6 * 2 * ((double)((m - 1) * (n - 1))) * iterations / pipeline_time);
    }
  }
  MPI_Bcast(&error, 1, MPI_INT, final, MPI_COMM_WORLD);
  free(vector);
  free(inbuf);
  MPI_Finalize();
  return error;
}
