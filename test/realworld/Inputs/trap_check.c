/* Gradient check of trap.c: the integral of f(x) = x^2 exp(-x/2) from a to b
 * with n trapezoids, as rank 0 receives it. dI/da and dI/db of the discrete
 * rule are compared with central differences of the primal, and with the
 * closed forms -f(a) and f(b) of the exact integral (to the rule's O(h^2)). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

double Integrate(double a, double b, int n, MPI_Comm comm);
double Integrate_b(double a, double *a_b, double b, double *b_b, int n, MPI_Comm comm,
                   double Integrate_bar);

typedef struct {
  double ab[2];
  int n;
} ctx_t;

/* The objective: rank 0's result, which is the integral. */
static double J(void *p) {
  ctx_t *c = p;
  double v = Integrate(c->ab[0], c->ab[1], c->n, MPI_COMM_WORLD);
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return v;
}

static double fx(double x) { return x * x * exp(-0.5 * x); }

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  ctx_t c = {{0.3, 3.0}, 1200};
  double g[2] = {0.0, 0.0};
  double v = Integrate_b(c.ab[0], &g[0], c.ab[1], &g[1], c.n, MPI_COMM_WORLD, 1.0);
  hx_tape("Integrate_b");
  MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  hx_check("value", v, J(&c), 1e-14, 1e-300);
  hx_check("dI/da vs -f(a)", g[0], -fx(c.ab[0]), 1e-4, 1e-300);
  hx_check("dI/db vs f(b)", g[1], fx(c.ab[1]), 1e-4, 1e-300);
  double dx[2] = {0.7, -0.4};
  mpiad_input in = {c.ab, dx, 2, 1};
  double *xb[1] = {g};
  hx_grad("dI/d(a, b)", J, &c, &in, 1, xb, 1e-5, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
