/* Gradient check of poisson2d_cart.c: J = sum over ranks of <w, a_final> on
 * each rank's own block, after maxit double sweeps from the initial grid a0
 * (the block and its ghosts, which at the domain's edge are the boundary
 * values) with right-hand side f, b's entry values held fixed.  J is linear
 * in (a0, f), so besides central differences of the primal, J at the
 * direction itself is the dot-product test: J(da, df) = <dJ/da0, da> +
 * <dJ/df, df>.  The decomposition is the program's (MPI_Dims_create,
 * MPI_Cart_create, MPI_Cart_shift, MPE_Decomp1d and the row type). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define maxn 31 + 2
#define NX 13
#define MAXIT 4
#define N (maxn) * (maxn)

int MPE_Decomp1d(int n, int size, int rank, int *s, int *e);
int poisson_solve(double a[][maxn], double b[][maxn], double f[][maxn],
                  int nx, int row_s, int row_e, int col_s, int col_e,
                  MPI_Comm comm2d, int nbrleft, int nbrright, int nbrup,
                  int nbrdown, MPI_Datatype row_type, int maxit);
int poisson_solve_b(double (*a)[maxn], double (*a_b)[maxn], double (*b)[maxn],
                    double (*f)[maxn], double (*f_b)[maxn], int nx, int row_s,
                    int row_e, int col_s, int col_e, MPI_Comm comm2d,
                    int nbrleft, int nbrright, int nbrup, int nbrdown,
                    MPI_Datatype row_type, int maxit);

static int row_s, row_e, col_s, col_e, nbrleft, nbrright, nbrup, nbrdown;
static MPI_Comm comm2d;
static MPI_Datatype row_type;
static double w_g[maxn][maxn], b0_g[maxn][maxn];
static int iterations_g;

/* Is (i, j) in this rank's block with its ghosts (what it may read)? */
static int mine(int i, int j) {
  return i >= col_s - 1 && i <= col_e + 1 && j >= row_s - 1 && j <= row_e + 1;
}

/* x holds a0 then f, each maxn x maxn (zero outside the block). */
static double J(void *ctx) {
  const double *x = ctx;
  static double a[maxn][maxn], b[maxn][maxn], f[maxn][maxn];
  memcpy(a, x, sizeof a);
  memcpy(f, x + N, sizeof f);
  memcpy(b, b0_g, sizeof b);
  iterations_g = poisson_solve(a, b, f, NX, row_s, row_e, col_s, col_e, comm2d,
                               nbrleft, nbrright, nbrup, nbrdown, row_type, MAXIT);
  double s = 0.0;
  for (int i = col_s; i <= col_e; i++)
    for (int j = row_s; j <= row_e; j++)
      s += w_g[i][j] * a[i][j];
  return hx_sum(s);
}

int main(void) {
  MPI_Init(NULL, NULL);
  int P, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Dims_create(P, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &comm2d);
  hx_init(comm2d);
  MPI_Comm_rank(comm2d, &rank);
  MPI_Cart_coords(comm2d, rank, 2, coords);
  MPI_Cart_shift(comm2d, 0, 1, &nbrleft, &nbrright);
  MPI_Cart_shift(comm2d, 1, 1, &nbrdown, &nbrup);
  MPE_Decomp1d(NX, dims[0], coords[0], &col_s, &col_e);
  MPE_Decomp1d(NX, dims[1], coords[1], &row_s, &row_e);
  MPI_Type_vector(col_e - col_s + 1, 1, maxn, MPI_DOUBLE, &row_type);
  MPI_Type_commit(&row_type);

  static double x[2 * N], dx[2 * N], xb[2 * N];
  static double r[2 * N], dr[2 * N], rw[N], rb[N];
  hx_rand(r, 2 * N, 61, rank, -1.0, 1.0);
  hx_rand(dr, 2 * N, 62, rank, -1.0, 1.0);
  hx_rand(rw, N, 63, rank, 0.5, 1.5);
  hx_rand(rb, N, 64, rank, -1.0, 1.0);
  for (int i = 0; i < maxn; i++)
    for (int j = 0; j < maxn; j++) {
      int k = i * (maxn) + j, in = mine(i, j);
      x[k] = in ? r[k] : 0.0;           /* a0 */
      x[N + k] = in ? r[N + k] : 0.0;   /* f */
      dx[k] = in ? dr[k] : 0.0;
      dx[N + k] = in ? dr[N + k] : 0.0;
      w_g[i][j] = rw[k];
      b0_g[i][j] = in ? rb[k] : 0.0;
    }

  double J0 = J(x);
  int k0 = iterations_g;
  static double a[maxn][maxn], a_b[maxn][maxn], b[maxn][maxn], f[maxn][maxn],
      f_b[maxn][maxn];
  memcpy(a, x, sizeof a);
  memcpy(f, x + N, sizeof f);
  memcpy(b, b0_g, sizeof b);
  memset(a_b, 0, sizeof a_b);
  memset(f_b, 0, sizeof f_b);
  for (int i = col_s; i <= col_e; i++)
    for (int j = row_s; j <= row_e; j++)
      a_b[i][j] = w_g[i][j];
  int kb = poisson_solve_b(a, a_b, b, f, f_b, NX, row_s, row_e, col_s, col_e,
                           comm2d, nbrleft, nbrright, nbrup, nbrdown, row_type,
                           MAXIT);
  hx_tape("poisson_solve_b");
  hx_check("the adjoint's iteration count", kb, k0, 0.0, 0.5);
  memcpy(xb, a_b, sizeof a_b);
  memcpy(xb + N, f_b, sizeof f_b);
  if (hx_rank_g == 0)
    printf("J = %.15g after %d iterations on a %d x %d grid of ranks\n", J0, k0,
           dims[0], dims[1]);

  mpiad_input in = {x, dx, 2 * N, 0};
  double *xbp[1] = {xb};
  hx_grad("dJ/d(a0, f)", J, x, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  hx_check("perturbed solves take as many iterations", iterations_g, k0, 0.0, 0.5);
  /* J is linear in (a0, f) with b's entry values fixed at zero. */
  memset(b0_g, 0, sizeof b0_g);
  double lhs = J(dx);
  memcpy(a, x, sizeof a);
  memcpy(f, x + N, sizeof f);
  memset(b, 0, sizeof b);
  memset(a_b, 0, sizeof a_b);
  memset(f_b, 0, sizeof f_b);
  for (int i = col_s; i <= col_e; i++)
    for (int j = row_s; j <= row_e; j++)
      a_b[i][j] = w_g[i][j];
  poisson_solve_b(a, a_b, b, f, f_b, NX, row_s, row_e, col_s, col_e, comm2d,
                  nbrleft, nbrright, nbrup, nbrdown, row_type, MAXIT);
  memcpy(xb, a_b, sizeof a_b);
  memcpy(xb + N, f_b, sizeof f_b);
  hx_dot_test("J(da, df) = <grad, (da, df)>", lhs, &in, 1, xbp, 1e-12);

  MPI_Type_free(&row_type);
  MPI_Comm_free(&comm2d);
  return hx_finish() + (MPI_Finalize() != MPI_SUCCESS);
}
