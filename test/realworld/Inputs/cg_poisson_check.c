/* Gradient check of cg_poisson.c: 0.5 |x_k|^2 after k CG steps on the 1-D
 * Poisson matrix, differentiated with respect to the right-hand side b,
 * against central differences of the primal. With k = n (all unknowns) CG
 * has solved A x = b exactly, so the gradient is also A^-1 x (A symmetric),
 * computed here serially on every rank with the Thomas algorithm. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "pmpi_count.h"

double cg_energy(const double *b, int n, int steps, MPI_Comm comm);
double cg_energy_b(const double *b, double *b_b, int n, int steps, MPI_Comm comm,
                   double cg_energy_bar);

#define NMAX 16 /* up to 5 ranks */
typedef struct {
  double *b;
  int n, steps;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return cg_energy(c->b, c->n, c->steps, MPI_COMM_WORLD);
}

static void thomas(double *v, int n) {
  double cp[NMAX], bp[NMAX];
  cp[0] = -0.5;
  bp[0] = v[0] / 2.0;
  for (int i = 1; i < n; i++) {
    double m = 2.0 + cp[i - 1];
    cp[i] = -1.0 / m;
    bp[i] = (v[i] + bp[i - 1]) / m;
  }
  v[n - 1] = bp[n - 1];
  for (int i = n - 2; i >= 0; i--)
    v[i] = bp[i] - cp[i] * v[i + 1];
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int P = hx_size_g, r = hx_rank_g, nloc = 3, N = 3 * P;
  double ball[NMAX], dball[NMAX], x[NMAX];
  hx_rand(ball, N, 41, HX_REP, 0.5, 1.5);
  hx_rand(dball, N, 42, HX_REP, -1.0, 1.0);
  double b[3], db[3], bb[3] = {0, 0, 0};
  for (int i = 0; i < nloc; i++) {
    b[i] = ball[r * nloc + i];
    db[i] = dball[r * nloc + i];
  }
  /* a few steps: central differences */
  ctx_t c = {b, nloc, 3};
  double v = cg_energy_b(b, bb, nloc, c.steps, MPI_COMM_WORLD, 1.0);
  hx_tape("cg_energy_b, 3 steps");
  hx_check("energy, 3 steps", v, J(&c), 1e-13, 1e-300);
  mpiad_input in = {b, db, 3, 0};
  double *xb[1] = {bb};
  hx_grad("dE/db, 3 steps", J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  /* N steps: the exact solution */
  c.steps = N;
  for (int i = 0; i < nloc; i++)
    bb[i] = 0.0;
  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  cg_energy(b, nloc, N, MPI_COMM_WORLD);
  pmpi_count_get(&c1, &b1);
  cg_energy_b(b, bb, nloc, N, MPI_COMM_WORLD, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("cg_energy_b, N steps");
  for (int i = 0; i < N; i++)
    x[i] = ball[i];
  thomas(x, N);
  thomas(x, N);
  hx_check_vec("dE/db = A^-2 b after N steps", bb, x + r * nloc, nloc, 1e-8, 1e-12);
  /* The adjoint's forward sweep repeats the primal's collectives; its reverse
   * sweep reduces the cotangent of each dot product that feeds rank-varying
   * updates (alpha, beta), but not of the last one, whose result is the
   * replicated objective: at most one collective fewer than the primal. */
  long long prim = c1 - c0, rev = (c2 - c1) - prim;
  hx_check("reverse-sweep collectives <= primal - 1", rev <= prim - 1 ? 1.0 : 0.0, 1.0, 0.0, 1.0);
  hx_check("reverse-sweep bytes <= primal", (b2 - b1) - (b1 - b0) <= b1 - b0 ? 1.0 : 0.0, 1.0,
           0.0, 1.0);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
