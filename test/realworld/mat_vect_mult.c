/* Corpus program: a distributed matrix-vector product y = A x with a block-row
 * distribution, in the shape of Pacheco's mpi_mat_vect_mult.c ("An
 * Introduction to Parallel Programming", ch. 3): each rank holds local_m rows
 * of A and local_n entries of x, gathers the whole x with MPI_Allgather into a
 * malloc'd buffer, multiplies, and frees the buffer. Written for mpiad in that
 * program's shape (its idioms, not its text), including the error check that
 * ends the program (Check_for_error with MPI_Abort) after the allocation.
 * The only mpiad edit: the pragma before Mat_vect_mult.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/mat_vect_mult_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Check_for_error(int local_ok, char fname[], char message[], MPI_Comm comm);

#pragma mpiad differentiate wrt(local_A, local_x) output(local_y) varying(local_A, local_x)
void Mat_vect_mult(double local_A[], double local_x[], double local_y[], int local_m, int n,
                   int local_n, MPI_Comm comm) {
  double *x;
  int local_i, j;
  int local_ok = 1;

  x = malloc(n * sizeof(double));
  if (x == NULL)
    local_ok = 0;
  Check_for_error(local_ok, "Mat_vect_mult", "Can't allocate temporary vector", comm);
  MPI_Allgather(local_x, local_n, MPI_DOUBLE, x, local_n, MPI_DOUBLE, comm);

  for (local_i = 0; local_i < local_m; local_i++) {
    local_y[local_i] = 0.0;
    for (j = 0; j < n; j++)
      local_y[local_i] += local_A[local_i * n + j] * x[j];
  }
  free(x);
}

void Check_for_error(int local_ok, char fname[], char message[], MPI_Comm comm) {
  int ok;

  MPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_MIN, comm);
  if (ok == 0) {
    int my_rank;
    MPI_Comm_rank(comm, &my_rank);
    if (my_rank == 0) {
      fprintf(stderr, "Proc %d > In %s, %s\n", my_rank, fname, message);
      fflush(stderr);
    }
    MPI_Finalize();
    exit(-1);
  }
}

int main(void) {
  int m = 8, n = 8, comm_sz, my_rank;
  MPI_Init(NULL, NULL);
  MPI_Comm_size(MPI_COMM_WORLD, &comm_sz);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  int local_m = m / comm_sz, local_n = n / comm_sz;
  double *local_A = malloc(local_m * n * sizeof(double));
  double *local_x = malloc(local_n * sizeof(double));
  double *local_y = malloc(local_m * sizeof(double));
  for (int i = 0; i < local_m * n; i++)
    local_A[i] = 1.0 / (1 + i + my_rank);
  for (int i = 0; i < local_n; i++)
    local_x[i] = my_rank * local_n + i;
  Mat_vect_mult(local_A, local_x, local_y, local_m, n, local_n, MPI_COMM_WORLD);
  for (int i = 0; i < local_m; i++)
    printf("y[%d] = %f\n", my_rank * local_m + i, local_y[i]);
  free(local_A);
  free(local_x);
  free(local_y);
  MPI_Finalize();
  return 0;
}
