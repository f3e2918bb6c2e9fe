// The comma operator and assignments used as values (issue 14), lowered by
// the frontend: `x = y = e` chains, `W(0,i) = W(i,0) = e` through a macro,
// `for (k = 0, j = a; ...)`, `for (int i = 0, k = n - 1; i < k; i++, k--)`,
// `if ((p = malloc(...)) == NULL)`, `(t = 2 * t, t + u)` in an expression,
// and calls, assignments and increments in loop conditions (`while (g(y) <
// tol)`, a call in a for condition, `do ... while (h(s) > c)` with a
// continue, `while (k-- > 0)`).  F_b and F_d are checked against central
// differences of the primal (lowering_check.h); x differs between ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "lowering_check.h"

#define N 6
#define W(a, b) w[(a) * 4 + (b)]

/* chained assignment, comma in for headers and in an expression */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double comma(const double *x, int n) {
  double s, t;
  s = t = 0.5 * x[0];
  double w[16];
  W(0, 0) = 1.0;
  for (int i = 1; i < 4; i++)
    W(0, i) = W(i, 0) = x[i] / i;
  int kk, j;
  for (kk = 0, j = 0; j < n; j++)
    kk += 2, s += x[j] * kk * t;
  for (int i = 0, k = n - 1; i < k; i++, k--)
    t += x[i] * x[k];
  double *p;
  if ((p = malloc(n * sizeof(double))) == NULL)
    return 0.0;
  for (int i = 0; i < n; i++)
    p[i] = x[i] * x[i];
  double u;
  s += (t = t * 2.0, u = p[1] * t, t + W(0, 1) * W(2, 0) + u);
  double a = s, b = s * 0.5, c;
  c = a = b = b * x[2];
  free(p);
  return s + a * c + b;
}

static double g(double y) { return y * y + 0.1; }
static double h(double y) { return 1.0 + sin(y); }

/* calls, assignments and increments in loop conditions */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double conds(const double *x, int n) {
  double y = x[0];
  int it = 0;
  while (g(y) < 4.0 && it < 20) {
    y = y * 1.3 + 0.1 * x[1];
    it++;
  }
  double s = y;
  for (int i = 0; g(x[i]) < 2.5 && i < n - 1; i++)
    s += x[i] * s * 0.1;
  int m = 0;
  do {
    s = s * 0.9 + x[m % n];
    m++;
    if (m == 2)
      continue;
    s += 0.01 * x[1];
  } while (h(s) > 0.2 && m < 8);
  int k = n;
  double q = 0.0;
  while (k-- > 0)
    q += x[k] * (k + 1);
  double r;
  int cnt = 0;
  while ((r = s * 0.5) > 0.3 && cnt < 5) {
    s = r + 0.1 * x[2];
    cnt++;
  }
  return s + q + fabs(sin(y));
}

LC_DECLARE(comma)
LC_DECLARE(conds)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  lc_init();
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 * sin(1.0 + i + 0.5 * lc_rank) + (i % 2 ? 0.9 : 0.6);
  lc_check("comma", comma, comma_b, comma_d, x, N);
  lc_check("conds", conds, conds_b, conds_d, x, N);
  int rc = lc_finish();
  MPI_Finalize();
  return rc;
}
