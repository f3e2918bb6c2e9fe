// A differentiated block inside a loop of an ordinary function
// (Outline.cpp): the block runs once per outer iteration.  `calls` is
// declared before the loop and used by the block only, but because the
// block runs in a loop it stays a parameter (by pointer, as the block
// assigns it): its value carries from one run of the block to the next.
// `last` and `acc` are assigned too (by pointer), `w` is an array, `k` and `c` go by
// value; the order is that of first use (acc before c).  The program's own
// result must be what the same loop computes written out by hand, and the
// adjoint of one run of the block must match central differences of that
// run, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: static void mpiad_block_L{{[0-9]+}}(double w[4], int k, int *calls, int *last, double *acc, double c)
// GEN: (*last) = (*calls);
// GEN: void step_b(double *w, double *w_b, int k, int *calls, int *last, double *acc, double *acc_b, double c)
// GEN: mpiad_block_L{{[0-9]+}}(w, k, &calls, &last, &acc, c);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static double run(double c, int nk) {
  double w[4] = {0.5, 0.25, 0.125, 1.0};
  double acc = 0.0;
  int calls = 0, last = 0;
  for (int k = 0; k < nk; k++) {
#pragma mpiad differentiate wrt(w) output(w, acc) varying(w) replicated(k, c) name(step_b)
    {
      double s = 0.0, t;
      for (int i = 0; i < 4; i++) {
        w[i] = sin(w[i] + 0.1 * k) * (1.0 + 0.5 * w[(i + 1) % 4]);
        s += w[i] * w[i];
      }
      MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      s = t;
      calls++;
      last = calls;
      acc += s * c;
    }
  }
  return acc + 1000.0 * last;
}

/* The same loop, written out by hand. */
static double by_hand(double c, int nk) {
  double w[4] = {0.5, 0.25, 0.125, 1.0};
  double acc = 0.0;
  int calls = 0;
  for (int k = 0; k < nk; k++) {
    double s = 0.0, t;
    for (int i = 0; i < 4; i++) {
      w[i] = sin(w[i] + 0.1 * k) * (1.0 + 0.5 * w[(i + 1) % 4]);
      s += w[i] * w[i];
    }
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    calls++;
    acc += t * c;
  }
  return acc + 1000.0 * calls;
}

/* One run of the block (k = 2) from w0: J = acc, replicated, evaluated
 * through the adjoint with a zero seed. */
static double w0[4];
static double J(void *p) {
  double *x = p, w[4], wb[4] = {0}, acc = 0.0, accb = 0.0;
  int calls = 2, last = 0;
  memcpy(w, x, sizeof w);
  step_b(w, wb, 2, &calls, &last, &acc, &accb, 1.5);
  return acc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  hx_check("the loop with the outlined block", run(0.75, 5), by_hand(0.75, 5),
           0.0, 1e-300);
  hx_rand(w0, 4, 31, hx_rank_g, 0.1, 0.9);
  double w[4], wb[4] = {0}, acc = 0.0, accb = 1.0;
  int calls = 2, last = 0;
  memcpy(w, w0, sizeof w);
  step_b(w, wb, 2, &calls, &last, &acc, &accb, 1.5);
  hx_tape("step_b");
  double dx[4];
  hx_rand(dx, 4, 32, hx_rank_g, -1.0, 1.0);
  double x[4];
  memcpy(x, w0, sizeof x);
  mpiad_input in = {x, dx, 4, 0};
  double *xb[1] = {wb};
  hx_grad("step_b", J, x, &in, 1, xb, 1e-6, 1e-7, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
