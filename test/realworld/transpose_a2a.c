/* Corpus program: a distributed matrix transpose B += A^T, in the shape of
 * the Parallel Research Kernels' MPI1/Transpose/transpose-a2a.c
 * (github.com/ParRes/Kernels): each rank owns a column block of A and of B
 * (order x colwidth, column-major through A(i, j)/B(i, j) macros), packs its
 * blocks into a work buffer, exchanges them with one MPI_Alltoall, and
 * transposes each received block locally into B; the caller provides the two
 * work buffers. Written for mpiad in that program's shape (its idioms, not its
 * text). A smooth nonlinear objective sum of B(i, j)^2 / 2 + sin(B(i, j))
 * follows the transpose. The only mpiad edit: the pragma, whose scratch(...)
 * names the caller's work buffers.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/transpose_a2a_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define A(i, j) A_p[(i) + order * (j)]
#define B(i, j) B_p[(i) + order * (j)]
#define Work_in(phase, i, j) Work_in_p[(phase) * block_size + (i) + colwidth * (j)]
#define Work_out(phase, i, j) Work_out_p[(phase) * block_size + (i) + colwidth * (j)]

#pragma mpiad differentiate wrt(A_p) varying(A_p, B_p) replicated(order) output(return, B_p) scratch(Work_in_p[order * (order / Num_procs)], Work_out_p[order * (order / Num_procs)])
double transpose_objective(double *A_p, double *B_p, double *Work_in_p, double *Work_out_p,
                           int order, int Num_procs, MPI_Comm comm) {
  int my_ID, i, j, phase, istart;
  int colwidth = order / Num_procs;
  int block_size = colwidth * colwidth;
  double local = 0.0, total;

  MPI_Comm_rank(comm, &my_ID);
  istart = my_ID * colwidth;

  /* pack the blocks of my columns, one per destination rank */
  for (phase = 0; phase < Num_procs; phase++)
    for (j = 0; j < colwidth; j++)
      for (i = 0; i < colwidth; i++)
        Work_out(phase, j, i) = A(phase * colwidth + i, j);
  MPI_Alltoall(Work_out_p, block_size, MPI_DOUBLE, Work_in_p, block_size, MPI_DOUBLE, comm);
  /* the block from rank phase holds rows istart.. of its columns: B gets them */
  for (phase = 0; phase < Num_procs; phase++)
    for (j = 0; j < colwidth; j++)
      for (i = 0; i < colwidth; i++)
        B(phase * colwidth + i, j) += Work_in(phase, i, j);

  for (j = 0; j < colwidth; j++)
    for (i = 0; i < order; i++)
      local += 0.5 * B(i, j) * B(i, j) + sin(B(i, j));
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  (void)istart;
  return total;
}

int main(int argc, char **argv) {
  int my_ID, Num_procs, order = 8;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_ID);
  MPI_Comm_size(MPI_COMM_WORLD, &Num_procs);
  int colwidth = order / Num_procs;
  double *A_p = malloc(sizeof(double) * order * colwidth);
  double *B_p = calloc((size_t)order * colwidth, sizeof(double));
  double *Work_in_p = malloc(sizeof(double) * order * colwidth);
  double *Work_out_p = malloc(sizeof(double) * order * colwidth);
  for (int j = 0; j < colwidth; j++)
    for (int i = 0; i < order; i++)
      A(i, j) = (double)(order * (my_ID * colwidth + j) + i);
  double v = transpose_objective(A_p, B_p, Work_in_p, Work_out_p, order, Num_procs,
                                 MPI_COMM_WORLD);
  if (my_ID == 0)
    printf("objective %f\n", v);
  free(A_p); free(B_p); free(Work_in_p); free(Work_out_p);
  MPI_Finalize();
  return 0;
}
