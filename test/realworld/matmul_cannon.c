/* Corpus program: Cannon's matrix-matrix multiplication on a periodic 2-D
 * process grid, in the shape of Program 6.2 of Grama, Gupta, Karypis and
 * Kumar, "Introduction to Parallel Computing" (2nd ed.), reproduced in many
 * public course repositories as `MatrixMatrixMultiply(int n, double *a,
 * double *b, double *c, MPI_Comm comm)`: dims from sqrt(npes), a periodic
 * MPI_Cart_create, MPI_Cart_coords, MPI_Cart_shift with displacement -1 for
 * the neighbours and -mycoords[.] / +mycoords[.] for the initial alignment
 * and the final restoration of a and b, MPI_Sendrecv_replace of the whole
 * blocks, the serial block product in a helper `MatrixMultiply(n, a, b, c)`
 * that adds a*b into c, MPI_Comm_free at the end.  Written for mpiad in that
 * program's shape (its idioms, not its text).
 * The only mpiad edit: the pragma before MatrixMatrixMultiply.  The
 * objective is a weighted sum of the product (the seeds of c_b); its
 * gradient is taken with respect to the blocks of a and b, which the
 * function shifts around the grid and puts back.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/matmul_cannon_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* c = c + a * b for n x n blocks stored by rows */
void MatrixMultiply(int n, double *a, double *b, double *c) {
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}

/* c = c + a * b for the n x n matrices distributed in blocks over the
 * sqrt(p) x sqrt(p) grid of comm's p processes */
#pragma mpiad differentiate wrt(a, b) output(a, b, c) varying(a, b, c)
void MatrixMatrixMultiply(int n, double *a, double *b, double *c,
                          MPI_Comm comm) {
  int i;
  int nlocal;
  int npes, dims[2], periods[2];
  int myrank, my2drank, mycoords[2];
  int uprank, downrank, leftrank, rightrank;
  int shiftsource, shiftdest;
  MPI_Status status;
  MPI_Comm comm_2d;

  MPI_Comm_size(comm, &npes);
  MPI_Comm_rank(comm, &myrank);

  /* the process grid: periodic in both directions */
  dims[0] = dims[1] = sqrt(npes);
  periods[0] = periods[1] = 1;
  MPI_Cart_create(comm, 2, dims, periods, 1, &comm_2d);
  MPI_Comm_rank(comm_2d, &my2drank);
  MPI_Cart_coords(comm_2d, my2drank, 2, mycoords);

  /* left and up neighbours, for the shifts of a and b */
  MPI_Cart_shift(comm_2d, 1, -1, &rightrank, &leftrank);
  MPI_Cart_shift(comm_2d, 0, -1, &downrank, &uprank);

  nlocal = n / dims[0];

  /* initial alignment: row i of a moves i blocks left, column j of b moves
   * j blocks up */
  MPI_Cart_shift(comm_2d, 1, -mycoords[0], &shiftsource, &shiftdest);
  MPI_Sendrecv_replace(a, nlocal * nlocal, MPI_DOUBLE, shiftdest, 1,
                       shiftsource, 1, comm_2d, &status);
  MPI_Cart_shift(comm_2d, 0, -mycoords[1], &shiftsource, &shiftdest);
  MPI_Sendrecv_replace(b, nlocal * nlocal, MPI_DOUBLE, shiftdest, 1,
                       shiftsource, 1, comm_2d, &status);

  /* the main loop: multiply, then shift a left and b up by one block */
  for (i = 0; i < dims[0]; i++) {
    MatrixMultiply(nlocal, a, b, c);
    MPI_Sendrecv_replace(a, nlocal * nlocal, MPI_DOUBLE, leftrank, 1,
                         rightrank, 1, comm_2d, &status);
    MPI_Sendrecv_replace(b, nlocal * nlocal, MPI_DOUBLE, uprank, 1, downrank,
                         1, comm_2d, &status);
  }

  /* restore the original distribution of a and b */
  MPI_Cart_shift(comm_2d, 1, +mycoords[0], &shiftsource, &shiftdest);
  MPI_Sendrecv_replace(a, nlocal * nlocal, MPI_DOUBLE, shiftdest, 1,
                       shiftsource, 1, comm_2d, &status);
  MPI_Cart_shift(comm_2d, 0, +mycoords[1], &shiftsource, &shiftdest);
  MPI_Sendrecv_replace(b, nlocal * nlocal, MPI_DOUBLE, shiftdest, 1,
                       shiftsource, 1, comm_2d, &status);

  MPI_Comm_free(&comm_2d);
}

int main(int argc, char **argv) {
  int npes, myrank, n, q, nlocal;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &npes);
  MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
  q = (int)sqrt(npes);
  if (q * q != npes) {
    if (myrank == 0)
      fprintf(stderr, "the number of processes must be a square\n");
    MPI_Finalize();
    return 1;
  }
  n = argc > 1 ? atoi(argv[1]) : 4 * q;
  nlocal = n / q;
  double *a = malloc(nlocal * nlocal * sizeof(double));
  double *b = malloc(nlocal * nlocal * sizeof(double));
  double *c = malloc(nlocal * nlocal * sizeof(double));
  for (int i = 0; i < nlocal * nlocal; i++) {
    a[i] = 1.0 + myrank;
    b[i] = 1.0 / (1.0 + i);
    c[i] = 0.0;
  }
  double t = MPI_Wtime();
  MatrixMatrixMultiply(n, a, b, c, MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  if (myrank == 0)
    printf("n = %d on %d x %d processes: c[0] = %g, %f s\n", n, q, q, c[0], t);
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return 0;
}
