/* Gradient check of matmul_cannon.c: J = sum over ranks of <w, c> for c = a b
 * (c zero on entry), as a function of the blocks of a and b.  Cannon's
 * algorithm needs a square number of processes: at 2 and 3 ranks the check
 * runs on the first one (a 1 x 1 grid) and the others wait.  J is bilinear,
 * so central differences are exact up to rounding, and by Euler's identity
 * <a, dJ/da> = <b, dJ/db> = J summed over ranks: checks that use neither the
 * tool's output for the reference nor the same arithmetic.  After the adjoint
 * a and b hold what its reverse sweep left there (it restores the blocks its
 * products read, not the alignment's shifts, and their length is computed
 * inside the function, so it cannot put them back; mpiad-cc warns), so the
 * identities use the inputs as they were. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NL 3 /* block size */

void MatrixMatrixMultiply(int n, double *a, double *b, double *c, MPI_Comm comm);
void MatrixMatrixMultiply_b(int n, double *a, double *a_b, double *b, double *b_b,
                            double *c, double *c_b, MPI_Comm comm);

static MPI_Comm comm_sq;
static int n_g;
static double w_g[NL * NL];

static double J(void *ctx) {
  const double *x = ctx; /* a's block, then b's */
  double a[NL * NL], b[NL * NL], c[NL * NL] = {0};
  memcpy(a, x, sizeof a);
  memcpy(b, x + NL * NL, sizeof b);
  MatrixMatrixMultiply(n_g, a, b, c, comm_sq);
  double s = 0.0;
  for (int k = 0; k < NL * NL; k++)
    s += w_g[k] * c[k];
  return hx_sum(s);
}

int main(void) {
  MPI_Init(NULL, NULL);
  int P, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int q = (int)sqrt(P);
  MPI_Comm_split(MPI_COMM_WORLD, rank < q * q ? 0 : MPI_UNDEFINED, rank, &comm_sq);
  if (comm_sq == MPI_COMM_NULL) {
    MPI_Finalize();
    return 0;
  }
  hx_init(comm_sq);
  n_g = NL * q;

  double x[2 * NL * NL], dx[2 * NL * NL], g[2 * NL * NL];
  hx_rand(x, 2 * NL * NL, 71, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, 2 * NL * NL, 72, hx_rank_g, -1.0, 1.0);
  hx_rand(w_g, NL * NL, 73, hx_rank_g, 0.5, 1.5);

  double J0 = J(x);
  double a[NL * NL], b[NL * NL], c[NL * NL] = {0}, a_b[NL * NL] = {0},
                                 b_b[NL * NL] = {0}, c_b[NL * NL];
  memcpy(a, x, sizeof a);
  memcpy(b, x + NL * NL, sizeof b);
  memcpy(c_b, w_g, sizeof c_b);
  MatrixMatrixMultiply_b(n_g, a, a_b, b, b_b, c, c_b, comm_sq);
  hx_tape("MatrixMatrixMultiply_b");
  if (hx_rank_g == 0)
    printf("J = %.15g on a %d x %d grid\n", J0, q, q);

  double sa = 0.0, sb = 0.0;
  for (int k = 0; k < NL * NL; k++) {
    sa += x[k] * a_b[k];
    sb += x[NL * NL + k] * b_b[k];
  }
  hx_check("<a, dJ/da> = J", hx_sum(sa), J0, 1e-12, 1e-300);
  hx_check("<b, dJ/db> = J", hx_sum(sb), J0, 1e-12, 1e-300);

  memcpy(g, a_b, sizeof a_b);
  memcpy(g + NL * NL, b_b, sizeof b_b);
  mpiad_input in = {x, dx, 2 * NL * NL, 0};
  double *gp[1] = {g};
  hx_grad("dJ/d(a, b)", J, x, &in, 1, gp, 1e-3, 1e-9, 1e-12);
  int rc = hx_finish();
  MPI_Comm_free(&comm_sq);
  MPI_Finalize();
  return rc;
}
