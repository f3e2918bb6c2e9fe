// One evaluation of a math call per adjoint or tangent statement
// (CallReuse.cpp): the reverse of `out += w * tanh(a)` computes tanh(a) once
// for both of its contributions, `exp(tanh(x))` and its argument each once,
// hypot and pow once for both arguments' derivatives; calls under the
// branches of `?:` stay in their branch (a branch of the reverse's `if`
// computes its own once); tanhf's value stays a float.
// Reverse mode against central differences and forward mode against
// reverse mode, at 1-4 ranks; the values are checked against the primal
// and the derivatives against ones written by hand.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double Fact_b(
// GEN: /* reverse sweep */
// GEN: double mpiad_t[[T:[0-9]+]] = tanh(a);
// GEN-NEXT: w_b[k] += out_b * mpiad_t[[T]];
// GEN-NEXT: a_b += w[k] * out_b * (1.0 - mpiad_t[[T]] * mpiad_t[[T]]);
// GEN-NEXT: a_b += out_b;
// GEN-LABEL: double Fact_d(
// GEN: double mpiad_t[[D:[0-9]+]] = tanh(a);
// GEN-NEXT: out_d += w_d[k] * mpiad_t[[D]] + w[k] * ((1.0 - mpiad_t[[D]] * mpiad_t[[D]]) * a_d) + a_d;
// GEN-NEXT: out += w[k] * mpiad_t[[D]] + a;
// GEN-LABEL: double Fnest_b(
// GEN: double mpiad_t[[I:[0-9]+]] = tanh(x[k]);
// GEN-NEXT: double mpiad_t[[O:[0-9]+]] = exp(mpiad_t[[I]]);
// GEN-NOT: tanh(
// GEN-LABEL: double Fnest_d(
// GEN-LABEL: double Fcond_b(
// GEN: if (x[k] > 0.5) {
// GEN-NEXT: double mpiad_t[[L:[0-9]+]] = log(x[k]);
// GEN-NEXT: x_b[k] += s_b * mpiad_t[[L]] * (1.0 / x[k]);
// GEN-NEXT: x_b[k] += mpiad_t[[L]] * s_b * (1.0 / x[k]);
// GEN-NEXT: } else {
// GEN-NEXT: double mpiad_t[[S:[0-9]+]] = sqrt(x[k]);
// GEN-LABEL: double Fcond_d(
// GEN-NOT: mpiad_t{{[0-9]+}} =
// GEN: s_d += x[k] > 0.5 ? 1.0 / x[k] * x_d[k] * log(x[k]) + log(x[k])
// GEN-LABEL: double Fself_b(
// GEN: a = mpiad_pop_f64();
// GEN-NEXT: double mpiad_t[[B:[0-9]+]] = a_b;
// GEN-NEXT: a_b = 0;
// GEN-NEXT: double mpiad_t[[A:[0-9]+]] = tanh(a);
// GEN-NEXT: x_b[k] += mpiad_t[[B]] * mpiad_t[[A]];
// GEN-LABEL: double Ffloat_d(
// GEN: float mpiad_t{{[0-9]+}} = tanhf(v);
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define N 9

/* out = sum_k w[k] tanh(a) + a, a = w[k+1] w[k+2]; each rank returns out
 * times the total over ranks: J = total^2.  (The `+ a` keeps a read outside
 * tanh(a), so CallHoist.cpp does not give tanh(a) a local of its own.) */
#pragma mpiad differentiate wrt(w) varying(w)
#pragma mpiad differentiate forward wrt(w)
double Fact(const double *w, MPI_Comm comm) {
  double out = 0.0;
  for (int k = 0; k + 2 < N; k++) {
    double a = w[k + 1] * w[k + 2];
    out += w[k] * tanh(a) + a;
  }
  double tot;
  MPI_Allreduce(&out, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return out * tot;
}

/* exp(tanh(x)) twice and tanh(x) once more, in one statement. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fnest(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k + 1 < N; k++)
    s += exp(tanh(x[k])) * x[k + 1] + exp(tanh(x[k])) * tanh(x[k]);
  (void)comm;
  return s;
}

/* hypot and pow: both arguments active, each call's value in both
 * arguments' derivatives. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fhyp(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k + 1 < N; k++)
    s += hypot(x[k], x[k + 1]) * x[k] + pow(x[k], x[k + 1]) * x[k + 1];
  (void)comm;
  return s;
}

/* The calls of a branch of ?: stay in it: log of the other branch's
 * argument is not evaluated where the primal did not. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fcond(const double *x, MPI_Comm comm) {
  double s = 0.0;
  for (int k = 0; k < N; k++)
    s += x[k] > 0.5 ? log(x[k]) * log(x[k]) : sqrt(x[k]) * sqrt(x[k] + 1.0);
  (void)comm;
  return s;
}

/* The statement writes the argument of its calls: the reverse restores a
 * (pops it) before computing tanh(a) once for the three contributions. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fself(const double *x, MPI_Comm comm) {
  double a = 0.3;
  for (int k = 0; k < N; k++)
    a = x[k] * tanh(a) + tanh(a) * tanh(a);
  (void)comm;
  return a;
}

/* float: tanhf's value kept in a float. */
#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Ffloat(const double *x, MPI_Comm comm) {
  float s = 0.0f;
  for (int k = 0; k < N; k++) {
    float v = (float)x[k];
    s += v * tanhf(v);
  }
  (void)comm;
  return s;
}

static int which;
static double F(const double *x) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fact(x, c) : which == 1 ? Fnest(x, c)
       : which == 2 ? Fhyp(x, c) : which == 3 ? Fcond(x, c)
       : which == 5 ? Fself(x, c) : Ffloat(x, c);
}
static double B(const double *x, double *xb) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fact_b(x, xb, c, 1.0) : which == 1 ? Fnest_b(x, xb, c, 1.0)
       : which == 2 ? Fhyp_b(x, xb, c, 1.0) : which == 3 ? Fcond_b(x, xb, c, 1.0)
       : which == 5 ? Fself_b(x, xb, c, 1.0) : Ffloat_b(x, xb, c, 1.0);
}
static void D(const double *x, double *xd, double *dot) {
  MPI_Comm c = MPI_COMM_WORLD;
  if (which == 0)
    Fact_d(x, xd, c, dot);
  else if (which == 1)
    Fnest_d(x, xd, c, dot);
  else if (which == 2)
    Fhyp_d(x, xd, c, dot);
  else if (which == 3)
    Fcond_d(x, xd, c, dot);
  else if (which == 5)
    Fself_d(x, xd, c, dot);
  else
    Ffloat_d(x, xd, c, dot);
}
static double J(void *p) { return hx_sum(F(p)); }

/* The derivatives by hand, dJ/dx for this rank's x (J = the sum of the
 * ranks' values; Fact's J = tot^2 has the gradient 2 tot d out/dw). */
static void byHand(const double *x, double *g) {
  for (int k = 0; k < N; k++)
    g[k] = 0.0;
  if (which == 0) {
    double out = 0.0;
    for (int k = 0; k + 2 < N; k++)
      out += x[k] * tanh(x[k + 1] * x[k + 2]) + x[k + 1] * x[k + 2];
    double tot = hx_sum(out);
    double f = 2.0 * tot;
    for (int k = 0; k + 2 < N; k++) {
      double t = tanh(x[k + 1] * x[k + 2]), dt = 1.0 - t * t;
      g[k] += f * t;
      g[k + 1] += f * (x[k] * dt + 1.0) * x[k + 2];
      g[k + 2] += f * (x[k] * dt + 1.0) * x[k + 1];
    }
  } else if (which == 1) {
    for (int k = 0; k + 1 < N; k++) {
      double t = tanh(x[k]), dt = 1.0 - t * t, e = exp(t);
      g[k] += e * dt * x[k + 1] + e * dt * t + e * dt;
      g[k + 1] += e;
    }
  } else if (which == 2) {
    for (int k = 0; k + 1 < N; k++) {
      double a = x[k], b = x[k + 1], h = hypot(a, b), p = pow(a, b);
      g[k] += a / h * a + h + b * pow(a, b - 1.0) * b;
      g[k + 1] += b / h * a + p * log(a) * b + p;
    }
  } else if (which == 3) {
    for (int k = 0; k < N; k++) {
      double v = x[k];
      g[k] = v > 0.5 ? 2.0 * log(v) / v
                     : 0.5 / sqrt(v) * sqrt(v + 1.0) + sqrt(v) * 0.5 / sqrt(v + 1.0);
    }
  } else if (which == 5) {
    double a[N + 1], t[N];
    a[0] = 0.3;
    for (int k = 0; k < N; k++) {
      t[k] = tanh(a[k]);
      a[k + 1] = x[k] * t[k] + t[k] * t[k];
    }
    double da = 1.0; /* dJ/da[k + 1], from the last step back */
    for (int k = N - 1; k >= 0; k--) {
      g[k] = da * t[k];
      da *= (x[k] + 2.0 * t[k]) * (1.0 - t[k] * t[k]);
    }
  } else {
    for (int k = 0; k < N; k++) {
      double t = tanh((float)x[k]);
      g[k] = t + (float)x[k] * (1.0 - t * t);
    }
  }
}

/* Central differences (double precision only: a float function's
 * differences are noise at h = 1e-6), then the adjoint and the tangent
 * against the derivatives by hand. */
static void check(const char *name, int w, unsigned long long seed, double rtol) {
  which = w;
  if (rtol < 1e-10)
    hx_check_shares(name, J, B, D, N, seed);
  double x[N], xb[N], g[N], xd[N], dx[N];
  hx_rand(x, N, seed + 7, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, seed + 8, hx_rank_g, -1.0, 1.0);
  hx_zero(xb, N);
  B(x, xb);
  byHand(x, g);
  char label[128];
  snprintf(label, sizeof label, "%s: adjoint vs by hand", name);
  hx_check_vec(label, xb, g, N, rtol, 1e-300);
  double dot = 0.0, want = 0.0;
  for (int k = 0; k < N; k++) {
    xd[k] = dx[k];
    want += g[k] * dx[k];
  }
  D(x, xd, &dot);
  snprintf(label, sizeof label, "%s: tangent vs by hand", name);
  hx_check(label, hx_sum(dot), hx_sum(want), rtol, 1e-300);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  check("Fact", 0, 11, 1e-13);
  check("Fnest", 1, 21, 1e-13);
  check("Fhyp", 2, 31, 1e-13);
  check("Fcond", 3, 41, 1e-13);
  check("Fself", 5, 61, 1e-13);
  check("Ffloat", 4, 51, 1e-5);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
