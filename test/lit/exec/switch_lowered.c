// switch statements (issue 14), lowered by the frontend to if/else with a
// fall-through flag: fall-through, break at the end of a section and inside
// an if, default in the middle, case lists, a continue that belongs to the
// enclosing loop (from a plain and from a wrapped switch), a loop inside a
// section whose break is the loop's, a nested switch, return from a section,
// enumerator and macro labels.  F_b and F_d are checked against central
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

#include "lowering_check.h"

#define N 9
#define THREE 3
enum { ZERO, ONE, TWO };

/* fall-through, a break inside an if (the wrapped form), default last */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double fall(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    switch (i % 4) {
    case ZERO:
      s += x[i] * x[i];
    case ONE:
      s += sin(x[i]);
      break;
    case TWO: {
      if (x[i] > 0.0)
        break;
      s *= 1.5;
    }
    default:
      s += 0.5 * x[i] * s;
    }
  }
  return s;
}

/* every section ends with break: an if/else chain; default in the middle,
 * a case list, a continue of the loop, a return */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double chain(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++) {
    int k = (i * 7) % 6;
    switch (k) {
    case 0:
      s = s * x[i];
      break;
    default:
      s += exp(0.1 * x[i]);
      break;
    case 1:
    case THREE:
      s -= x[i] * s * 0.25;
      break;
    case 4:
      continue;
    case 5:
      if (s > 1e6)
        return s;
      s = s / (1.0 + x[i] * x[i]);
    }
    s += 0.01 * x[i];
  }
  return s;
}

/* a continue inside a wrapped switch, a loop inside a section whose break is
 * the loop's, a nested switch, default first and falling through */
#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double nested(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    switch (i % 3) {
    default:
      s += 0.3 * x[i];
    case 1:
      for (int j = 0; j < n; j++) {
        if (j > i)
          break;
        s += x[j] * x[i] * 0.1;
      }
      if (x[i] < -0.5)
        continue;
      switch (i % 2) {
      case 0:
        s *= 0.9;
        break;
      case 1:
        s = s + cos(x[i]);
      }
      if (s > 100.0)
        break;
      s += x[i];
      break;
    case 2:
      s = s * x[i];
    }
    s = s * 0.95;
  }
  return s;
}

LC_DECLARE(fall)
LC_DECLARE(chain)
LC_DECLARE(nested)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  lc_init();
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 * sin(1.0 + i + 0.5 * lc_rank) + (i % 2 ? 0.3 : -0.2);
  lc_check("fall", fall, fall_b, fall_d, x, N);
  lc_check("chain", chain, chain_b, chain_d, x, N);
  lc_check("nested", nested, nested_b, nested_d, x, N);
  int rc = lc_finish();
  MPI_Finalize();
  return rc;
}
