/* Gradient check of jacobi1d.c: the energy of the Jacobi solution with
 * respect to the source, against central differences of the primal, and
 * against the gradient of the exactly solved discrete problem
 * (dE/df = h^3 A^-1 u for A = tridiag(-1, 2, -1), solved here serially on
 * every rank with the Thomas algorithm), which the iteration approaches to
 * its tolerance. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

double solve_energy(const double *f, int nlocal, double h, double tol, int maxit,
                    MPI_Comm comm);
double solve_energy_b(const double *f, double *f_b, int nlocal, double h, double tol,
                      int maxit, MPI_Comm comm, double solve_energy_bar);

#define N 12
typedef struct {
  double *f;
  int nlocal;
  double h;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return solve_energy(c->f, c->nlocal, c->h, 1e-13, 20000, MPI_COMM_WORLD);
}

/* Solves A x = b (A = tridiag(-1, 2, -1), n unknowns) in place. */
static void thomas(double *b, int n) {
  double cp[N], bp[N];
  cp[0] = -0.5;
  bp[0] = b[0] / 2.0;
  for (int i = 1; i < n; i++) {
    double m = 2.0 + cp[i - 1];
    cp[i] = -1.0 / m;
    bp[i] = (b[i] + bp[i - 1]) / m;
  }
  b[n - 1] = bp[n - 1];
  for (int i = n - 2; i >= 0; i--)
    b[i] = bp[i] - cp[i] * b[i + 1];
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g;
  int off = 0, counts[64];
  for (int k = 0; k < P; k++)
    counts[k] = N / P + (k < N % P);
  for (int k = 0; k < r; k++)
    off += counts[k];
  ctx_t c = {NULL, counts[r], 1.0 / (N + 1)};
  double fall[N], dfall[N], u[N];
  hx_rand(fall, N, 31, HX_REP, 0.5, 1.5);
  hx_rand(dfall, N, 32, HX_REP, -1.0, 1.0);
  c.f = malloc(c.nlocal * sizeof(double));
  double *df = malloc(c.nlocal * sizeof(double)), *fb = calloc(c.nlocal, sizeof(double));
  for (int i = 0; i < c.nlocal; i++) {
    c.f[i] = fall[off + i];
    df[i] = dfall[off + i];
  }
  double v = solve_energy_b(c.f, fb, c.nlocal, c.h, 1e-13, 20000, MPI_COMM_WORLD, 1.0);
  hx_tape("solve_energy_b");
  hx_check("energy", v, J(&c), 1e-14, 1e-300);
  /* the exactly solved problem */
  for (int i = 0; i < N; i++)
    u[i] = c.h * c.h * fall[i];
  thomas(u, N);
  double g[N];
  for (int i = 0; i < N; i++)
    g[i] = c.h * c.h * c.h * u[i];
  thomas(g, N);
  hx_check_vec("dE/df vs the exact discrete solution", fb, g + off, c.nlocal, 1e-7, 1e-12);
  mpiad_input in = {c.f, df, (size_t)c.nlocal, 0};
  double *xb[1] = {fb};
  hx_grad("dE/df", J, &c, &in, 1, xb, 1e-4, 1e-6, 1e-12);
  free(c.f); free(df); free(fb);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
