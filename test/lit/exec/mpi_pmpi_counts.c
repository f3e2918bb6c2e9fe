// "No more communication than the primal" (DESIGN.md section 2, JAX issue
// 21855), measured with a PMPI interposition layer (Inputs/pmpi_count.c,
// which also sees libmpiad's calls).  For functions in global semantics:
//   loss:      Allreduce of a local loss, replicated parameters theta, the
//              result used only by replicated code;
//   bcast:     a buffer computed at the root, broadcast, used by replicated
//              code only;
//   allgather: a gathered buffer used by replicated code only;
//   loss2:     two Allreduces of the loss, both results only replicated.
// The reverse sweep's collectives (calls during F_b minus calls during one
// primal F) must be no more than the primal's, and its bytes no more than the
// primal's plus the bytes of the replicated inputs' gradient (one fused
// reduction).  Every function is also checked against central differences.
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"
#include "pmpi_count.h"

#define NS 3 /* samples per rank */
#define D 4  /* parameters */
#define NB 3

/* mean over all samples of 0.5 (theta . x_i - 1)^2 + lambda |theta|^2 */
#pragma mpiad differentiate wrt(theta, X) replicated(theta) varying(X)
double loss(const double *theta, const double *X, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < NS; i++) {
    double z = -1.0;
    for (int j = 0; j < D; j++)
      z += theta[j] * X[i * D + j];
    local += 0.5 * z * z;
  }
  int P;
  MPI_Comm_size(comm, &P);
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  double reg = 0.0;
  for (int j = 0; j < D; j++)
    reg += theta[j] * theta[j];
  return total / (NS * P) + 0.01 * reg;
}

/* two Allreduces, both results only replicated */
#pragma mpiad differentiate wrt(theta, X) replicated(theta) varying(X)
double loss2(const double *theta, const double *X, MPI_Comm comm) {
  double l1 = 0.0, l2 = 0.0;
  for (int i = 0; i < NS; i++) {
    double z = 0.0;
    for (int j = 0; j < D; j++)
      z += theta[j] * X[i * D + j];
    l1 += z * z;
    l2 += sin(z);
  }
  double t1 = 0.0, t2 = 0.0;
  MPI_Allreduce(&l1, &t1, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&l2, &t2, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t1 * t2 + t2;
}

#pragma mpiad differentiate wrt(x) varying(x)
double bc(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double b[NB];
  for (int i = 0; i < NB; i++)
    b[i] = 0.0;
  if (r == 0)
    for (int i = 0; i < NB; i++)
      b[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Bcast(b, NB, MPI_DOUBLE, 0, comm);
  double s = 0.0;
  for (int i = 0; i < NB; i++)
    s += b[i] * b[i] * (i + 1);
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x)
double ag(const double *x, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[2], g[8];
  for (int i = 0; i < 2; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  double s = 0.0;
  for (int j = 0; j < 2 * P; j++)
    s += g[j] * g[j] * (j + 1);
  return s;
}

/* adapters for the generic check (th = theta, x = the local data) */
static void P_loss(const double *x, const double *th, double *y) {
  y[0] = loss(th, x, MPI_COMM_WORLD);
}
static void B_loss(const double *x, double *xb, const double *th, double *thb,
                   double *y, double *yb) {
  y[0] = loss_b(th, thb, x, xb, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0.0;
}
static void P_loss2(const double *x, const double *th, double *y) {
  y[0] = loss2(th, x, MPI_COMM_WORLD);
}
static void B_loss2(const double *x, double *xb, const double *th,
                    double *thb, double *y, double *yb) {
  y[0] = loss2_b(th, thb, x, xb, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0.0;
}
static void P_bc(const double *x, const double *th, double *y) {
  (void)th;
  y[0] = bc(x, MPI_COMM_WORLD);
}
static void B_bc(const double *x, double *xb, const double *th, double *thb,
                 double *y, double *yb) {
  (void)th;
  (void)thb;
  y[0] = bc_b(x, xb, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0.0;
}
static void P_ag(const double *x, const double *th, double *y) {
  (void)th;
  y[0] = ag(x, MPI_COMM_WORLD);
}
static void B_ag(const double *x, double *xb, const double *th, double *thb,
                 double *y, double *yb) {
  (void)th;
  (void)thb;
  y[0] = ag_b(x, xb, MPI_COMM_WORLD, yb[0]);
  yb[0] = 0.0;
}

static void counts(const char *name, hx_primal_fn P, hx_adjoint_fn B, int nx,
                   int nth) {
  double x[NS * D], th[D], xb[NS * D] = {0}, thb[D] = {0}, y, yb = 1.0;
  long long c0, b0, c1, b1, c2, b2;
  hx_rand(x, nx, 77, hx_rank_g, -1.0, 1.0);
  hx_rand(th, nth, 78, HX_REP, -1.0, 1.0);
  pmpi_count_get(&c0, &b0);
  P(x, th, &y);
  pmpi_count_get(&c1, &b1);
  B(x, xb, th, thb, &y, &yb);
  pmpi_count_get(&c2, &b2);
  long long pc = c1 - c0, pb = b1 - b0;
  long long rc = (c2 - c1) - pc, rb = (b2 - b1) - pb;
  long long gb = (long long)nth * (long long)sizeof(double);
  if (hx_rank_g == 0) {
    printf("%s: primal %lld collective calls, %lld bytes; reverse sweep %lld "
           "calls, %lld bytes; replicated gradient %lld bytes\n",
           name, pc, pb, rc, rb, gb);
    fflush(stdout);
  }
  char label[256];
  /* the counts are the same on every rank: check the worst */
  double wc = (double)(rc - pc), wb = (double)(rb - pb - gb), m;
  MPI_Allreduce(&wc, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  snprintf(label, sizeof label,
           "%s: reverse-sweep calls minus primal calls <= 0", name);
  hx_check(label, m > 0 ? m : 0.0, 0.0, 0.0, 1.0);
  MPI_Allreduce(&wb, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  snprintf(label, sizeof label,
           "%s: reverse-sweep bytes minus (primal + gradient) bytes <= 0", name);
  hx_check(label, m > 0 ? m : 0.0, 0.0, 0.0, 1.0);
  hx_tape(name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  counts("loss", P_loss, B_loss, NS * D, D);
  counts("loss2", P_loss2, B_loss2, NS * D, D);
  counts("bcast", P_bc, B_bc, NB, 0);
  counts("allgather", P_ag, B_ag, 2, 0);
  hx_case cs[4] = {
      {"loss", P_loss, B_loss, NS * D, D, 0, 1, 0, -1.0, 1.0},
      {"loss2", P_loss2, B_loss2, NS * D, D, 0, 1, 0, -1.0, 1.0},
      {"bcast", P_bc, B_bc, NB, 0, 0, 1, 0},
      {"allgather", P_ag, B_ag, 2, 0, 0, 1, 0},
  };
  for (int k = 0; k < 4; k++)
    hx_case_run(&cs[k], 2000 + 10 * k);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
