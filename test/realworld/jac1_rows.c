/* Corpus program: the DVM benchmark "JAC1" Jacobi relaxation as an MPI C
 * program, in the shape of yandex-cloud/examples, hpc-on-preemptible/task.c
 * (the public text is not copied here; see README.md): rows of a L-column
 * grid split over the ranks, the arrays as pointers to rows `double
 * (*A)[L]` from one malloc, loop counters `i, j, it` and the request
 * bookkeeping `ll, shift` as file-scope globals, a copy-back A = B over the
 * interior that skips the global boundary rows with `continue`, the ghost
 * rows exchanged by MPI_Irecv/MPI_Isend into &A[0][0] and &A[nrow+1][0],
 * completed by MPI_Waitall(ll, &req[shift], ...) with a count and an offset
 * chosen by rank, and the relaxation written back into B.  Here the
 * iteration is a function of the initial B (the program's initial values
 * are its argument), and the objective is the sum of squares of the final
 * B over all ranks.  The pointer-to-rows locals were refused before this
 * program ("unsupported initialiser of array 'A'").
 * The only mpiad edit: the pragma before jac1.
 *
 * RUN: %mpiad-cc -c -Wall -Wextra -Werror -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/jac1_rows_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 * RUN: %mpiad-emit -Dmain=program_main %s -o - | sed '/^ \* [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
 * GEN-LABEL: double jac1_b(
 * GEN: double (*A_b)[16] = NULL;
 * GEN: A_b = calloc(1, (nrow + 2) * L * sizeof(double));
 * GEN: if ((i == 1 && myrank == 0) || (i == nrow && myrank == ranksize - 1)) {
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include "mpi.h"
#define m_printf if (myrank == 0) printf
#define L 16
#define ITMAX 6
int i, j, it, k;
int ll, shift;

#pragma mpiad differentiate wrt(b0) varying(b0, nrow, myrank)
double jac1(const double *b0, int nrow, int myrank, int ranksize) {
  MPI_Request req[4];
  MPI_Status status[4];
  double (*A)[L] = malloc((nrow + 2) * L * sizeof(double));
  double (*B)[L] = malloc((nrow) * L * sizeof(double));
  for (i = 1; i <= nrow; i++)
    for (j = 0; j <= L - 1; j++) {
      A[i][j] = 0.;
      B[i - 1][j] = b0[(i - 1) * L + j];
    }

  /****** iteration loop *************************/
  for (it = 1; it <= ITMAX; it++) {
    for (i = 1; i <= nrow; i++) {
      if (((i == 1) && (myrank == 0)) || ((i == nrow) && (myrank == ranksize - 1)))
        continue;
      for (j = 1; j <= L - 2; j++) {
        A[i][j] = B[i - 1][j];
      }
    }

    if (myrank != 0)
      MPI_Irecv(&A[0][0], L, MPI_DOUBLE, myrank - 1, 1215, MPI_COMM_WORLD, &req[0]);
    if (myrank != ranksize - 1)
      MPI_Isend(&A[nrow][0], L, MPI_DOUBLE, myrank + 1, 1215, MPI_COMM_WORLD, &req[2]);
    if (myrank != ranksize - 1)
      MPI_Irecv(&A[nrow + 1][0], L, MPI_DOUBLE, myrank + 1, 1216, MPI_COMM_WORLD, &req[3]);
    if (myrank != 0)
      MPI_Isend(&A[1][0], L, MPI_DOUBLE, myrank - 1, 1216, MPI_COMM_WORLD, &req[1]);
    ll = 4;
    shift = 0;
    if (myrank == 0) {
      ll = 2;
      shift = 2;
    }
    if (myrank == ranksize - 1) {
      ll = 2;
    }
    MPI_Waitall(ll, &req[shift], &status[0]);

    for (i = 1; i <= nrow; i++) {
      if (((i == 1) && (myrank == 0)) || ((i == nrow) && (myrank == ranksize - 1))) continue;
      for (j = 1; j <= L - 2; j++)
        B[i - 1][j] = (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) / 4.;
    }
  } /*DO it*/

  double s = 0.0, g = 0.0;
  for (i = 0; i < nrow; i++)
    for (j = 0; j < L; j++)
      s += B[i][j] * B[i][j];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(A);
  free(B);
  return g;
}

int main(int argc, char **argv) {
  int myrank, ranksize;
  int startrow, lastrow, nrow;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranksize);
  startrow = (myrank * L) / ranksize;
  lastrow = (((myrank + 1) * L) / ranksize) - 1;
  nrow = lastrow - startrow + 1;
  m_printf("JAC1 STARTED\n");
  double *b0 = malloc((size_t)nrow * L * sizeof(double));
  for (i = 0; i < nrow; i++)
    for (j = 0; j < L; j++)
      b0[i * L + j] = 1. + startrow + i + j;
  double t1 = MPI_Wtime();
  double e = jac1(b0, nrow, myrank, ranksize);
  m_printf("%d: Time of task=%lf, energy %g\n", myrank, MPI_Wtime() - t1, e);
  free(b0);
  MPI_Finalize();
  return 0;
}
