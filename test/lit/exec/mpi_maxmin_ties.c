// MPI_Allreduce with MPI_MAX and MPI_MIN and ties across ranks.  The
// documented tie rule: the LOWEST rank holding the extreme receives the whole
// adjoint, every other rank zero.  Elements: 0 equal on all ranks (owner 0);
// 1 the extreme on every odd rank (owner 1; 0 at one rank); 2 a unique extreme
// on rank P-1; 3 a tie between ranks P-2 and P-1 (owner P-2).  Varying use
// y = (r+1) s and replicated use y = s, both semantics, the MPI_IN_PLACE form,
// float.  Exact checks at the tie point; central differences at random points
// (no ties there).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"

#define N 4

#pragma mpiad differentiate wrt(x) output(y) name(max_var_g_b) semantics(global) varying(x)
void max_var_g(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(max_var_inp_g_b) semantics(global) varying(x)
void max_var_inp_g(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(max_var_pr_b) semantics(per_rank)
void max_var_pr(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(max_var_inp_pr_b) semantics(per_rank)
void max_var_inp_pr(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(max_rep_g_b) semantics(global) varying(x)
void max_rep_g(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(max_rep_pr_b) semantics(per_rank)
void max_rep_pr(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_var_g_b) semantics(global) varying(x)
void min_var_g(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_var_inp_g_b) semantics(global) varying(x)
void min_var_inp_g(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_var_pr_b) semantics(per_rank)
void min_var_pr(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_var_inp_pr_b) semantics(per_rank)
void min_var_inp_pr(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_rep_g_b) semantics(global) varying(x)
void min_rep_g(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(min_rep_pr_b) semantics(per_rank)
void min_rep_pr(const double *x, double *y, MPI_Comm comm) {
  double s[N];
  MPI_Allreduce(x, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i];
}

#pragma mpiad differentiate wrt(x) output(y) name(fmax_var_g_b) varying(x)
void fmax_var_g(const float *x, float *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float s[N];
  MPI_Allreduce(x, s, N, MPI_FLOAT, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    y[i] = (r + 1) * s[i];
}

#define ADAPT(f)                                                               \
  static void P_##f(const double *x, const double *th, double *y) {            \
    (void)th;                                                                  \
    f(x, y, MPI_COMM_WORLD);                                                   \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,             \
                    double *thb, double *y, double *yb) {                      \
    (void)th;                                                                  \
    (void)thb;                                                                 \
    f##_b(x, xb, y, yb, MPI_COMM_WORLD);                                       \
  }
ADAPT(max_var_g)
ADAPT(max_var_inp_g)
ADAPT(max_var_pr)
ADAPT(max_var_inp_pr)
ADAPT(max_rep_g)
ADAPT(max_rep_pr)
ADAPT(min_var_g)
ADAPT(min_var_inp_g)
ADAPT(min_var_pr)
ADAPT(min_var_inp_pr)
ADAPT(min_rep_g)
ADAPT(min_rep_pr)

static void P_fmax_var_g(const double *x, const double *th, double *y) {
  float xf[N], yf[N];
  (void)th;
  hx_tof(xf, x, N);
  fmax_var_g(xf, yf, MPI_COMM_WORLD);
  hx_tod(y, yf, N);
}
static void B_fmax_var_g(const double *x, double *xb, const double *th,
                         double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[N], ybf[N];
  (void)th;
  (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, N);
  fmax_var_g_b(xf, xbf, yf, ybf, MPI_COMM_WORLD);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, N);
  hx_tod(yb, ybf, N);
}

/* the tie point on rank q, for MAX (sign 1) or MIN (sign -1) */
static void tie_point(int q, int P, double sign, double *x) {
  x[0] = 2.0;
  x[1] = (q % 2 == 1) ? 3.0 : 1.0;
  x[2] = q;
  x[3] = q < P - 2 ? q : P - 2;
  for (int i = 0; i < N; i++)
    x[i] = sign * x[i] + 0.5;
}

/* kind 0: varying use; 1: replicated use, global; 2: replicated, per_rank */
static void exact(const char *name, hx_adjoint_fn B, double sign, int kind) {
  int r = hx_rank_g, P = hx_size_g;
  int owner[N];
  owner[0] = 0;
  owner[1] = P >= 2 ? 1 : 0;
  owner[2] = P - 1;
  owner[3] = P >= 2 ? P - 2 : 0;
  double x[N], xb[N] = {0}, y[N], yb[N], want[N], ext[N], xq[N];
  char label[256];
  tie_point(r, P, sign, x);
  for (int i = 0; i < N; i++) {
    yb[i] = 0.5 + 0.25 * i; /* the same seed on every rank */
    double G = 0.0;
    for (int q = 0; q < P; q++)
      G += kind == 0 ? yb[i] * (q + 1) : yb[i];
    if (kind == 1)
      G = yb[i];
    want[i] = r == owner[i] ? G : 0.0;
    tie_point(owner[i], P, sign, xq);
    ext[i] = xq[i];
  }
  B(x, xb, 0, 0, y, yb);
  hx_tape(name);
  snprintf(label, sizeof label, "%s: adjoint to the lowest tied rank", name);
  hx_check_vec(label, xb, want, N, 0.0, 1e-300);
  for (int i = 0; i < N; i++)
    y[i] /= kind == 0 ? (r + 1) : 1;
  snprintf(label, sizeof label, "%s: extreme", name);
  hx_check_vec(label, y, ext, N, 0.0, 1e-300);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  unsigned long long seed = 500;
  exact("max_var_g", B_max_var_g, 1.0, 0);
  {
    hx_case c = {"FD max_var_g", P_max_var_g, B_max_var_g, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("max_var_inp_g", B_max_var_inp_g, 1.0, 0);
  {
    hx_case c = {"FD max_var_inp_g", P_max_var_inp_g, B_max_var_inp_g, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("max_var_pr", B_max_var_pr, 1.0, 0);
  {
    hx_case c = {"FD max_var_pr", P_max_var_pr, B_max_var_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("max_var_inp_pr", B_max_var_inp_pr, 1.0, 0);
  {
    hx_case c = {"FD max_var_inp_pr", P_max_var_inp_pr, B_max_var_inp_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("max_rep_g", B_max_rep_g, 1.0, 1);
  {
    hx_case c = {"FD max_rep_g", P_max_rep_g, B_max_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("max_rep_pr", B_max_rep_pr, 1.0, 2);
  {
    hx_case c = {"FD max_rep_pr", P_max_rep_pr, B_max_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_var_g", B_min_var_g, -1.0, 0);
  {
    hx_case c = {"FD min_var_g", P_min_var_g, B_min_var_g, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_var_inp_g", B_min_var_inp_g, -1.0, 0);
  {
    hx_case c = {"FD min_var_inp_g", P_min_var_inp_g, B_min_var_inp_g, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_var_pr", B_min_var_pr, -1.0, 0);
  {
    hx_case c = {"FD min_var_pr", P_min_var_pr, B_min_var_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_var_inp_pr", B_min_var_inp_pr, -1.0, 0);
  {
    hx_case c = {"FD min_var_inp_pr", P_min_var_inp_pr, B_min_var_inp_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_rep_g", B_min_rep_g, -1.0, 1);
  {
    hx_case c = {"FD min_rep_g", P_min_rep_g, B_min_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("min_rep_pr", B_min_rep_pr, -1.0, 2);
  {
    hx_case c = {"FD min_rep_pr", P_min_rep_pr, B_min_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  exact("float fmax_var_g", B_fmax_var_g, 1.0, 0);
  {
    hx_case cf = {"float fmax_var_g", P_fmax_var_g, B_fmax_var_g, N, 0, N, 0, 0};
    hx_case cd = {"max_var_g", P_max_var_g, B_max_var_g, N, 0, N, 0, 0};
    hx_case_twin(&cf, &cd, 700, 1e-5);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
