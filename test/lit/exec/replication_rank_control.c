// Every replication decision that rank-dependent control makes, checked by
// execution (issue 21, part 5: a replication analysis that ignored
// rank-dependent branches failed only a test of a warning's text).  Inputs
// are replicated; results vary because of control flow on the rank:
//   F: a branch on the rank assigns the result (x_b = 5 at 3 ranks);
//   G: a loop whose bound depends on the rank, with a reduction after it;
//   H: an Allreduce over a sub-communicator (MPI_Comm_split by parity): its
//      result is equal within a group only (treated as replicated over the
//      whole communicator, every gradient was halved at 4 ranks);
//   K: a reduction inside a branch on the rank (only even ranks add).
// Closed forms, and central differences of the global objective (the sum
// over ranks of the varying results).
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

#pragma mpiad differentiate wrt(x) replicated(x)
double F(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double v = x[0];
  if (r == 0)
    v = x[0] * x[0];
  return v;
}

#pragma mpiad differentiate wrt(x) replicated(x)
double G(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double v = 0;
  for (int k = 0; k <= r; k++)
    v += x[0] * x[1];
  double t;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t * x[0];
}

#pragma mpiad differentiate wrt(x) replicated(x)
double H(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  MPI_Comm sub;
  MPI_Comm_split(comm, r % 2, r, &sub);
  double v = x[0] * (1.0 + r), t;
  MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, sub);
  MPI_Comm_free(&sub);
  return t * t;
}

#pragma mpiad differentiate wrt(x) replicated(x)
double K(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s = x[1] * x[1];
  if (r % 2 == 0)
    s += x[0] * x[1];
  double t;
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

double F_b(const double *x, double *x_b, MPI_Comm comm, double F_bar);
double G_b(const double *x, double *x_b, MPI_Comm comm, double G_bar);
double H_b(const double *x, double *x_b, MPI_Comm comm, double H_bar);
double K_b(const double *x, double *x_b, MPI_Comm comm, double K_bar);

typedef double (*prim_t)(const double *, MPI_Comm);
typedef double (*adj_t)(const double *, double *, MPI_Comm, double);
#define NF 4
static prim_t prims[NF] = {F, G, H, K};
static adj_t adjs[NF] = {F_b, G_b, H_b, K_b};
static const char *names[NF] = {"branch on the rank", "rank-dependent bound",
                                "sub-communicator Allreduce",
                                "reduction under a rank branch"};
/* Does the function return a replicated value (counted once)?  G and K end
 * in an Allreduce over the whole communicator; F and H vary. */
static const int replicated_result[NF] = {0, 1, 0, 1};

static void expected(int k, const double *x, int p, double *g) {
  g[0] = g[1] = 0.0;
  if (k == 0) { /* J = x0^2 + (p - 1) x0 */
    g[0] = 2.0 * x[0] + (p - 1);
  } else if (k == 1) { /* J = S x0^2 x1, S = p (p + 1) / 2 */
    double S = p * (p + 1) / 2.0;
    g[0] = 2.0 * S * x[0] * x[1];
    g[1] = S * x[0] * x[0];
  } else if (k == 2) { /* J = sum_g |g| c_g^2 x0^2, c_g = sum_{r in g} (1 + r) */
    double w = 0.0;
    for (int grp = 0; grp < 2; grp++) {
      double c = 0.0;
      int cnt = 0;
      for (int q = grp; q < p; q += 2) {
        c += 1 + q;
        cnt++;
      }
      w += cnt * c * c;
    }
    g[0] = 2.0 * x[0] * w;
  } else { /* J = p x1^2 + E x0 x1, E = number of even ranks */
    int E = (p + 1) / 2;
    g[0] = E * x[1];
    g[1] = 2.0 * p * x[1] + E * x[0];
  }
}

typedef struct {
  double *x;
  int which;
} ctx_t;

static double J(void *q) {
  ctx_t *c = q;
  double f = prims[c->which](c->x, MPI_COMM_WORLD), g;
  if (replicated_result[c->which])
    return f;
  MPI_Allreduce(&f, &g, 1, MPI_DOUBLE, MPI_SUM, hx_comm_g);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  char label[256];
  for (int k = 0; k < NF; k++) {
    double x[2] = {1.5, 0.5}, x_b[2] = {0.0, 0.0}, want[2], dx[2];
    double f = adjs[k](x, x_b, MPI_COMM_WORLD, 1.0);
    hx_tape(names[k]);
    snprintf(label, sizeof label, "%s: primal value", names[k]);
    hx_check_each(label, f, prims[k](x, MPI_COMM_WORLD), 1e-15, 1e-300);
    expected(k, x, hx_size_g, want);
    snprintf(label, sizeof label, "%s: gradient vs closed form", names[k]);
    hx_check_vec(label, x_b, want, 2, 1e-14, 1e-14);
    hx_rand(dx, 2, 300 + k, HX_REP, -1.0, 1.0);
    ctx_t c = {x, k};
    mpiad_input in = {x, dx, 2, 1};
    double *xb[1] = {x_b};
    hx_grad(names[k], J, &c, &in, 1, xb, 1e-6, 1e-7, 1e-10);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
