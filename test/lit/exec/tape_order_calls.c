// The tape is LIFO across calls: the old value of a target that a call
// overwrites must be popped after the callee's (or the rule's) reverse has
// popped what its forward pushed.  A same-file callee that records a branch
// flag, assigned to a recorded scalar (`q = helper(...)` after `b = b * q`);
// a callee that records integers, assigned to a recorded integer in a loop
// (`m = gather(...)`), which also overwrites a local array through a pointer
// argument whose old contents the reverse sweep reads; a call whose argument
// is its own target (`v = step(v, c)` in a loop); an in-place MPI_Allreduce
// with MPI_PROD on a recorded value, with x the same on all ranks and with x
// varying per rank.  Hand-derived gradients and central differences.
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

#define N 4

/* r = p q, or sqrt(p q) when p q > 1: the branch flag is recorded */
static double helper(double p, double q) {
  double r = p * q;
  if (r > 1.0)
    r = sqrt(r);
  return r + sin(p);
}

/* b = x1 h(x0) h(x1), with h(p) = helper(p, 1) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double call_helper(const double *x, int n) {
  (void)n;
  double b = x[1];
  double q = helper(x[0], 1.0);
  b = b * q;
  q = helper(x[1], 1.0);
  b = b * q;
  return b;
}

/* buf[k] = x[idx[k]] for k < count, with a while loop (its trip count is
 * recorded); returns count */
static int gather(const double *x, const int *idx, int count, double *buf) {
  int k = 0;
  while (k < count) {
    buf[k] = x[idx[k]];
    k++;
  }
  return k;
}

/* t = 0: m = 3, buf = (x3, x1, x2), s += 3 (x3^2 + x1^2 + x2^2);
 * t = 1: m = 2, buf = (x0, x2), s += 2 (x0^2 + x2^2).  m is read by the
 * reverse (recorded when the next call overwrites it), and so is buf (its
 * old contents recorded before the call) */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double call_gather(const double *x, int n) {
  int idx[3] = {3, 1, 2};
  int idx2[3] = {0, 2, 1};
  double buf[N];
  double s = 0.0;
  int m = 0;
  for (int t = 0; t < 2; t++) {
    m = gather(x, t == 0 ? idx : idx2, n - 1 - t, buf);
    for (int j = 0; j < m; j++)
      s += buf[j] * buf[j] * m;
  }
  return s;
}

static double step(double v, double c) {
  double w = v * c;
  if (w > 0.5)
    w = w * w;
  return v + sin(w);
}

/* v <- v + sin(w(v)), w = 0.9 v (squared above 0.5), three times, from x0 */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double call_self(const double *x, int n) {
  (void)n;
  double v = x[0];
  for (int t = 0; t < 3; t++)
    v = step(v, 0.9);
  return v * x[1];
}

/* J = (x0^2)^P: the value is recorded before the rule's forward records its
 * own */
#pragma mpiad differentiate wrt(x) replicated(x, n)
double prod_in_place(const double *x, int n, MPI_Comm comm) {
  (void)n;
  double v = x[0];
  v = v * v;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_PROD, comm);
  return v;
}

static double prod_adapter(const double *x, int n) {
  return prod_in_place(x, n, MPI_COMM_WORLD);
}
double prod_in_place_b(const double *x, double *x_b, int n, MPI_Comm comm,
                       double prod_in_place_bar);
static double prod_adapter_b(const double *x, double *x_b, int n, double seed) {
  return prod_in_place_b(x, x_b, n, MPI_COMM_WORLD, seed);
}

/* The same with x varying per rank: J = prod over ranks of x_r^2, dJ/dx_r =
 * 2 J / x_r.  (x is not listed in replicated(...).) */
#pragma mpiad differentiate wrt(x) varying(x)
double prod_in_place_varying(const double *x, MPI_Comm comm) {
  double v = x[0];
  v = v * v;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_PROD, comm);
  return v;
}

typedef double (*prim_t)(const double *, int);
typedef double (*adj_t)(const double *, double *, int, double);
#define ADJ(f) double f##_b(const double *x, double *x_b, int n, double f##_bar);
ADJ(call_helper) ADJ(call_gather) ADJ(call_self)
#undef ADJ
#define NF 4
static prim_t prims[NF] = {call_helper, call_gather, call_self, prod_adapter};
static adj_t adjs[NF] = {call_helper_b, call_gather_b, call_self_b,
                         prod_adapter_b};
static const char *names[NF] = {"q = helper(...) recorded", "m = gather(...) recorded",
                                "v = step(v, c) recorded",
                                "in-place Allreduce PROD recorded"};

static double h(double p) { return (p > 1.0 ? sqrt(p) : p) + sin(p); }
static double dh(double p) { return (p > 1.0 ? 0.5 / sqrt(p) : 1.0) + cos(p); }

/* The gradients, derived by hand. */
static void expected(int k, const double *x, double *g) {
  for (int i = 0; i < N; i++)
    g[i] = 0.0;
  switch (k) {
  case 0:
    g[0] = x[1] * dh(x[0]) * h(x[1]);
    g[1] = h(x[0]) * h(x[1]) + x[1] * h(x[0]) * dh(x[1]);
    break;
  case 1:
    g[0] = 4.0 * x[0];
    g[1] = 6.0 * x[1];
    g[2] = 10.0 * x[2];
    g[3] = 6.0 * x[3];
    break;
  case 2: { /* chain rule through the three steps */
    double v = x[0], dv = 1.0;
    for (int t = 0; t < 3; t++) {
      double w = 0.9 * v, dw = 0.9 * dv;
      if (w > 0.5) {
        dw = 2.0 * w * dw;
        w = w * w;
      }
      dv = dv + cos(w) * dw;
      v = v + sin(w);
    }
    g[0] = dv * x[1];
    g[1] = v;
    break;
  }
  case 3: { /* J = x0^(2P), dJ/dx0 = 2P x0^(2P-1) */
    g[0] = 2.0 * hx_size_g * pow(x[0], 2.0 * hx_size_g - 1.0);
    break;
  }
  }
}

typedef struct {
  double *x;
  int which;
} ctx_t;

/* Every result is replicated (counted once): J is the function itself. */
static double J(void *p) {
  ctx_t *c = p;
  return prims[c->which](c->x, N);
}

static double Jv(void *p) { return prod_in_place_varying(p, MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    double x[N] = {0.8, 0.6, 1.3, 0.9}, x_b[N], want[N], dx[N];
    if (k == 0)
      x[0] = 2.0; /* helper takes its sqrt branch at x0, not at x1 */
    if (k == 3)
      x[0] = 0.5;
    hx_zero(x_b, N);
    double f = adjs[k](x, x_b, N, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, N), 1e-15, 1e-300);
    expected(k, x, want);
    snprintf(label, sizeof label, "%s: gradient vs hand-derived", names[k]);
    hx_check_vec(label, x_b, want, N, 1e-13, 1e-14);
    hx_rand(dx, N, 950 + k, HX_REP, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, N, 1};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  {
    /* x_r = 0.5 + 0.1 r: at 2 ranks J = 0.09, x_b = 0.36 on rank 0 and 0.30
     * on rank 1 */
    double x[1] = {0.5 + 0.1 * hx_rank_g}, x_b[1] = {0.0}, dx[1];
    double all = 1.0;
    for (int r = 0; r < hx_size_g; r++)
      all *= (0.5 + 0.1 * r) * (0.5 + 0.1 * r);
    prod_in_place_varying_b(x, x_b, MPI_COMM_WORLD, 1.0);
    hx_tape("varying in-place Allreduce PROD");
    hx_check_each("varying in-place Allreduce PROD: gradient vs hand-derived",
                  x_b[0], 2.0 * all / x[0], 1e-14, 1e-300);
    hx_rand(dx, 1, 990, hx_rank_g, -1.0, 1.0);
    mpiad_input in = {x, dx, 1, 0};
    double *xb[1] = {x_b};
    hx_grad("varying in-place Allreduce PROD", Jv, x, &in, 1, xb, 1e-6, 1e-7,
            1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
