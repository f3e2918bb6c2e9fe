// Derivatives from a call's value (CallHoist.cpp): where the argument of
// tanh, exp, sqrt or cbrt is a scalar local read nowhere but in that call,
// the call gets a local of its own, its reverse computes the derivative from
// the value (1 - t^2, t, 0.5 / t, ...) and the argument is no longer
// recorded.  The recording analysis must then keep that value live after
// the statement: Fover overwrites it with another statement before the
// reverse reads it, which must record it.  Each function: value, empty
// tape, reverse mode against central differences and forward mode against
// reverse mode (forward mode recomputes the calls: an independent check), at
// 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double Fmlp_b(
// GEN: /* forward sweep */
// GEN-NOT: mpiad_push_f64(a);
// GEN: mpiad_push_f64(mpiad_h1);
// GEN-NEXT: mpiad_h1 = tanh(a);
// GEN-NEXT: out += x[k] * mpiad_h1;
// GEN: /* reverse sweep */
// GEN-NOT: tanh(
// GEN: a_b += mpiad_h1_b * (1.0 - mpiad_h1 * mpiad_h1);
// GEN-NEXT: mpiad_h1_b = 0;
// GEN-NEXT: mpiad_h1 = mpiad_pop_f64();
// GEN-LABEL: double Fuser_b(
// GEN-NOT: mpiad_push_f64(z);
// GEN: z_b += t_b * t;
// GEN-LABEL: double Fover_b(
// GEN: t = tanh(a);
// GEN: mpiad_push_f64(t);
// GEN-NEXT: t = 3.0 * x[k];
// GEN: /* reverse sweep */
// GEN: a_b += t_b * (1.0 - t * t);
// GEN-LABEL: double Fbranch_b(
// GEN: mpiad_h{{[0-9]+}} = sqrt(a1);
// GEN: mpiad_h{{[0-9]+}} = cbrt(a2);
// GEN-LABEL: double Fshared_b(
// GEN-NOT: mpiad_h
// GEN: double Fshared_d(
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 7

/* A small two-layer model (the shape of bench/replicas_bench.c's mlp):
 * a accumulated, read only by tanh(a).  J = (sum over ranks of l)^2. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fmlp(const double *x, MPI_Comm comm) {
  double l = 0.0;
  for (int i = 0; i < 3; i++) {
    double out = x[0];
    for (int k = 1; k < N; k++) {
      double a = 0.0;
      for (int j = 0; j < 3; j++)
        a += x[(k + j) % N] * (0.3 + 0.1 * i + 0.05 * j);
      out += x[k] * tanh(a);
    }
    double e = out - 0.5;
    l += e * e;
  }
  double tot;
  MPI_Allreduce(&l, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return l * tot;
}

/* The user's own `double t = exp(z);`, z accumulated and read nowhere
 * else: marked as it is; t itself is read by t * t and sqrt(t). */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fuser(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k < N; k++) {
    double z = x[k] * x[(k + 1) % N];
    z -= 0.25 * x[(k + 2) % N];
    double t = exp(z);
    s += t * t + sqrt(t);
  }
  (void)comm;
  return s;
}

/* t = tanh(a) is read by its own reverse as assigned, after another
 * statement overwrote t: that statement must record it, though nothing
 * between them reads t in the reverse sweep. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fover(const double *x, MPI_Comm comm) {
  double s = 0.0, t = 0.0;
  for (int k = 0; k < N; k++) {
    double a = 2.0 * x[k] - 0.5;
    a -= 0.5 * x[(k + 3) % N];
    t = tanh(a);
    s += 2.0 * t + x[(k + 1) % N]; /* its reverse does not read t */
    t = 3.0 * x[k];
    s += t * t;
  }
  (void)comm;
  return s;
}

/* Calls in the branches of an if, each hoisted in its branch. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fbranch(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k < N; k++) {
    double a1 = x[k] + 1.0, a2 = 3.0 * x[k] * x[k];
    a1 += 0.5 * x[(k + 3) % N];
    a2 += x[(k + 4) % N];
    if (x[k] > 0.6)
      s += x[(k + 1) % N] * sqrt(a1);
    else
      s += cbrt(a2) * x[(k + 2) % N];
  }
  (void)comm;
  return s;
}

/* The argument is read elsewhere too (a * a), or assigned once from
 * arithmetic (b: the reverse sweep computes b again, Recompute.cpp):
 * recording tanh(a) or exp(b) as well would add to the tape; nothing is
 * hoisted. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fshared(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k < N; k++) {
    double a = x[k] * x[(k + 1) % N];
    a += x[(k + 2) % N];
    double b = 0.5 * x[k] - x[(k + 3) % N];
    s += tanh(a) + a * a + exp(b) * x[k];
  }
  (void)comm;
  return s;
}

static int which;
static double F(const double *x) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fmlp(x, c) : which == 1 ? Fuser(x, c)
       : which == 2 ? Fover(x, c) : which == 3 ? Fbranch(x, c) : Fshared(x, c);
}
static double B(const double *x, double *xb) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fmlp_b(x, xb, c, 1.0) : which == 1 ? Fuser_b(x, xb, c, 1.0)
       : which == 2 ? Fover_b(x, xb, c, 1.0) : which == 3 ? Fbranch_b(x, xb, c, 1.0)
       : Fshared_b(x, xb, c, 1.0);
}
static void D(const double *x, double *xd, double *dot) {
  MPI_Comm c = MPI_COMM_WORLD;
  if (which == 0)
    Fmlp_d(x, xd, c, dot);
  else if (which == 1)
    Fuser_d(x, xd, c, dot);
  else if (which == 2)
    Fover_d(x, xd, c, dot);
  else if (which == 3)
    Fbranch_d(x, xd, c, dot);
  else
    Fshared_d(x, xd, c, dot);
}
static double J(void *p) { return hx_sum(F(p)); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  const char *names[] = {"Fmlp", "Fuser", "Fover", "Fbranch", "Fshared"};
  for (which = 0; which < 5; which++)
    hx_check_shares(names[which], J, B, D, N, 100 + 10 * which);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
