// Sweep fusion with early returns after the fused loop (issue 21, 1st case).
// The adjoint of the code after the function's last loop runs first when it
// reads no forward value; a return inside a branch records which return was
// taken, so that code's adjoint pops what the forward half has not pushed
// yet: x = {2, 3, 1} gave (5, 6, 8) instead of (7, 8, 8), and without the
// products a tape underflow.  Fusion now refuses code after the loop that
// uses the tape.  Checked against hand-derived gradients and central
// differences; x differs between ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 3

/* a = x0 (times x1, times x2 while above 1.5); plus the sum of squares. */
#pragma mpiad differentiate wrt(x) varying(x, n)
double branches(const double *x, int n) {
  double a = x[0];
  if (a > 1.5)
    a = a * x[1];
  if (a > 1.5)
    a = a * x[2];
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  if (loc > 1e6)
    return loc + a;
  return loc + a;
}

/* Two returns of the same value after the loop. */
#pragma mpiad differentiate wrt(x) varying(x, n)
double two_returns(const double *x, int n) {
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  if (loc > 1e6)
    return loc;
  return loc;
}

/* The branch taken after the loop depends on the loop's result. */
#pragma mpiad differentiate wrt(x) varying(x, n)
double taken(const double *x, int n) {
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  if (loc > 4.0)
    return 3.0 * loc;
  return loc;
}

double branches_b(const double *x, double *x_b, int n, double f_bar);
double two_returns_b(const double *x, double *x_b, int n, double f_bar);
double taken_b(const double *x, double *x_b, int n, double f_bar);

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);
#define NF 3
static prim_t prims[NF] = {branches, two_returns, taken};
static adj_t adjs[NF] = {branches_b, two_returns_b, taken_b};
static const char *names[NF] = {"branches then returns", "two returns",
                                "return taken on the loop's result"};

static void expected(int k, const double *x, double *g) {
  for (int i = 0; i < N; i++)
    g[i] = 2.0 * x[i];
  double s = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  if (k == 0) {
    if (x[0] > 1.5 && x[0] * x[1] > 1.5) {
      g[0] += x[1] * x[2];
      g[1] += x[0] * x[2];
      g[2] += x[0] * x[1];
    } else if (x[0] > 1.5) {
      g[0] += x[1];
      g[1] += x[0];
    } else {
      g[0] += 1.0;
    }
  }
  if (k == 2 && s > 4.0)
    for (int i = 0; i < N; i++)
      g[i] *= 3.0;
}

typedef struct {
  double *x;
  int which;
} ctx_t;

/* Each rank's value is its own (varying x): J is their sum. */
static double J(void *p) {
  ctx_t *c = p;
  double f = prims[c->which](c->x, N), g;
  MPI_Allreduce(&f, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    /* Rank r: x = {2, 3, 1} + 0.1 r (rank 0 is the case; every rank
     * takes the same branches, away from their thresholds). */
    double x[N], x_b[N], want[N], dx[N];
    for (int i = 0; i < N; i++)
      x[i] = (i == 0 ? 2.0 : i == 1 ? 3.0 : 1.0) + 0.1 * hx_rank_g;
    hx_zero(x_b, N);
    double f = adjs[k](x, x_b, N, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, N), 1e-15, 1e-300);
    expected(k, x, want);
    snprintf(label, sizeof label, "%s: gradient vs hand-derived", names[k]);
    hx_check_vec(label, x_b, want, N, 1e-14, 1e-14);
    hx_rand(dx, N, 700 + k, hx_rank_g, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, N, 0};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
