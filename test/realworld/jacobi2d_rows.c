/* Corpus program: a 2-D Jacobi iteration on a grid of row pointers, in the
 * shape of the MPI Jacobi solver of the University of Siegen's parallel
 * processing lab (file header "Iterative solver: Jacobi method, Author: RW";
 * C++ in the original, found in several public course repositories):
 * `int solver(double **a, int m, int n)` on the rank's block of rows with a
 * ghost row above and below, an auxiliary matrix from `New_Matrix` (one
 * block, row pointers into it) checked against NULL with an exit, a
 * `do { ... } while (gdiff > eps)` loop whose maximum change goes through
 * `fabs` and an `if`, the copy back into `a`, the ghost rows sent and
 * received row by row with blocking MPI_Send / MPI_Recv that depend on the
 * rank, MPI_Allreduce with MPI_MAX, `eps` a global, the iteration count
 * returned. In C here (malloc/free for new/delete, fprintf for cerr).
 * The objective is a weighted sum of the converged grid (the seeds of a_b);
 * its gradient is taken with respect to the initial grid, ghost rows
 * included. The only mpiad edit: the pragma before solver.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/jacobi2d_rows_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The iteration stops when no element changed by more than eps. */
double eps = 0.001;

/* A 2-D array of m rows of n columns, in one piece, with row pointers. */
double **New_Matrix(int m, int n) {
  double **res;
  double *array;
  int i;

  res = (double **)malloc(m * sizeof(double *));
  array = (double *)malloc(m * n * sizeof(double));
  if (res == NULL || array == NULL)
    return NULL;
  for (i = 0; i < m; i++) {
    res[i] = &array[i * n];
  }
  return res;
}

void Delete_Matrix(double **matrix) {
  free(matrix[0]);
  free(matrix);
}

/* Jacobi iteration on the m*n block 'a' (rows 0 and m-1 are ghost rows,
 * or the boundary on the first and last rank). */
#pragma mpiad differentiate wrt(a) output(a) varying(a) replicated(m, n)
int solver(double **a, int m, int n) {
  int i, j;
  double h;
  double diff, gdiff; /* Maximum change since the last iteration */
  int k = 0;          /* Counts iterations */
  double **b = New_Matrix(m, n); /* Auxiliary matrix for the result */
  MPI_Status status;
  int nprocs, myrank;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Comm_rank(MPI_COMM_WORLD, &myrank);

  if (b == NULL) {
    fprintf(stderr, "Jacobi: Can't allocate matrix\n");
    exit(1);
  }

  do {
    diff = 0;
    for (i = 1; i < m - 1; i++) {
      for (j = 1; j < n - 1; j++) {
        b[i][j] = 0.25 * (a[i][j - 1] + a[i - 1][j] + a[i + 1][j] + a[i][j + 1]);
        /* the maximum change of the elements */
        h = fabs(a[i][j] - b[i][j]);
        if (h > diff)
          diff = h;
      }
    }
    /* copy the new values into 'a' */
    for (i = 1; i < m - 1; i++) {
      for (j = 1; j < n - 1; j++) {
        a[i][j] = b[i][j];
      }
    }
    k++;
    /* ghost rows: send down, receive from above */
    if (myrank != nprocs - 1)
      MPI_Send(a[m - 2], n, MPI_DOUBLE, myrank + 1, 0, MPI_COMM_WORLD);
    if (myrank != 0)
      MPI_Recv(a[0], n, MPI_DOUBLE, myrank - 1, 0, MPI_COMM_WORLD, &status);
    /* send up, receive from below */
    if (myrank != 0)
      MPI_Send(a[1], n, MPI_DOUBLE, myrank - 1, 1, MPI_COMM_WORLD);
    if (myrank != nprocs - 1)
      MPI_Recv(a[m - 1], n, MPI_DOUBLE, myrank + 1, 1, MPI_COMM_WORLD, &status);

    MPI_Allreduce(&diff, &gdiff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  } while (gdiff > eps);

  Delete_Matrix(b);

  return k;
}

int main(int argc, char **argv) {
  int rank, size, n = 32, i, j;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1)
    n = atoi(argv[1]);
  int m = n / size + 2;
  double **a = New_Matrix(m, n);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      a[i][j] = 0.0;
  for (i = 0; i < m; i++) /* heated left edge */
    a[i][0] = 1.0;
  double t0 = MPI_Wtime();
  int k = solver(a, m, n);
  double t1 = MPI_Wtime();
  if (rank == 0)
    printf("%d iterations, %.3f s, a[1][1] = %.6f\n", k, t1 - t0, a[1][1]);
  Delete_Matrix(a);
  MPI_Finalize();
  return 0;
}
