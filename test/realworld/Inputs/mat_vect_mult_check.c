/* Check of mat_vect_mult.c. y = A x is linear, so the adjoint is exact:
 * with seed y_b, A_b[i][j] = y_b[i] x[j] and x_b = A^T y_b (both computed
 * here independently, gathering x and y_b over the ranks), and the
 * dot-product test <A dx, y_b> = <dx, x_b> holds to rounding. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

void Mat_vect_mult(double local_A[], double local_x[], double local_y[], int local_m, int n,
                   int local_n, MPI_Comm comm);
void Mat_vect_mult_b(double local_A[], double *local_A_b, double local_x[], double *local_x_b,
                     double local_y[], double *local_y_b, int local_m, int n, int local_n,
                     MPI_Comm comm);

#define LM 3
int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g, n = LM * P;
  double *A = malloc(LM * n * sizeof(double)), *A_b = calloc(LM * n, sizeof(double));
  double x[LM], x_b[LM] = {0}, y[LM], y_b[LM], y_b0[LM], dx[LM], y1[LM];
  double *dA = malloc(LM * n * sizeof(double));
  double *xall = malloc(n * sizeof(double)), *yball = malloc(n * sizeof(double));
  hx_rand(A, LM * n, 1, r, -1.0, 1.0);
  hx_rand(dA, LM * n, 2, r, -1.0, 1.0);
  hx_rand(x, LM, 3, r, -1.0, 1.0);
  hx_rand(dx, LM, 4, r, -1.0, 1.0);
  hx_rand(y_b, LM, 5, r, -1.0, 1.0);
  for (int i = 0; i < LM; i++)
    y_b0[i] = y_b[i];
  Mat_vect_mult_b(A, A_b, x, x_b, y, y_b, LM, n, LM, MPI_COMM_WORLD);
  hx_tape("Mat_vect_mult_b");
  MPI_Allgather(x, LM, MPI_DOUBLE, xall, LM, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Allgather(y_b0, LM, MPI_DOUBLE, yball, LM, MPI_DOUBLE, MPI_COMM_WORLD);
  double errA = 0.0, errx = 0.0;
  for (int i = 0; i < LM; i++)
    for (int j = 0; j < n; j++)
      errA = fmax(errA, fabs(A_b[i * n + j] - y_b0[i] * xall[j]));
  for (int j = 0; j < LM; j++) { /* x_b[j] = sum over all rows of A[row][col] y_b[row] */
    double lw = 0.0, w;
    for (int k = 0; k < P; k++) {
      lw = 0.0;
      for (int i = 0; i < LM; i++)
        lw += A[i * n + (k * LM + j)] * y_b0[i];
      /* the rank that owns x entry k*LM+j collects the contributions */
      MPI_Reduce(&lw, &w, 1, MPI_DOUBLE, MPI_SUM, k, MPI_COMM_WORLD);
      if (k == r)
        errx = fmax(errx, fabs(x_b[j] - w));
    }
  }
  hx_check("A_b = y_b x^T", errA, 0.0, 1.0, 1e-14);
  hx_check("x_b = A^T y_b", errx, 0.0, 1.0, 1e-13);
  for (int i = 0; i < LM; i++)
    y_b[i] = 0.0;
  /* dot-product test: F(dA, dx) = dA x + A dx */
  double *tmp = malloc(LM * n * sizeof(double));
  for (int i = 0; i < LM * n; i++)
    tmp[i] = dA[i];
  Mat_vect_mult(tmp, x, y1, LM, n, LM, MPI_COMM_WORLD);
  Mat_vect_mult(A, dx, y, LM, n, LM, MPI_COMM_WORLD);
  double l = 0.0;
  for (int i = 0; i < LM; i++)
    l += (y1[i] + y[i]) * y_b0[i];
  double lhs;
  MPI_Allreduce(&l, &lhs, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  mpiad_input in[2] = {{A, dA, (size_t)LM * n, 0}, {x, dx, LM, 0}};
  double *xb[2] = {A_b, x_b};
  hx_dot_test("y = A x", lhs, in, 2, xb, 1e-13);
  free(A); free(A_b); free(dA); free(xall); free(yball); free(tmp);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
