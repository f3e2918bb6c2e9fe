// C that real MPI programs write around their communication (issue 14):
// assert(...) (glibc: a comma, a statement expression and __assert_fail),
// MPI_Wtime() and MPI_Wtick() as values, the return code of MPI_Comm_rank
// and MPI_Allreduce used (it is MPI_SUCCESS), the datatype and operator
// through macros (#define MPI_DTYPE MPI_DOUBLE) and locals assigned once
// (MPI_Datatype t = MPI_DOUBLE; MPI_Op op = MY_OP;), and same-file helpers
// that end the program (MPI_Abort, exit, abort) on a path that is not
// taken.  F_b and F_d are checked against central differences of the primal
// (lowering_check.h); x differs between ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <assert.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "lowering_check.h"

#define N 5
#define MPI_DTYPE MPI_DOUBLE
#define MY_OP MPI_SUM

/* Pacheco's Check_for_error: every rank learns whether one failed. */
static void check_for_error(int local_ok, const char *msg, MPI_Comm comm) {
  int ok;
  MPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_MIN, comm);
  if (!ok) {
    fprintf(stderr, "%s\n", msg);
    MPI_Abort(comm, 1);
  }
}

static void die(const char *msg) {
  fprintf(stderr, "%s\n", msg);
  exit(1);
}

/* a helper with an active argument and a path that ends the program */
static double checked_sqrt(double v) {
  if (v < 0.0) {
    fprintf(stderr, "negative: %g\n", v);
    abort();
  }
  return sqrt(v);
}

#pragma mpiad differentiate forward wrt(x)
#pragma mpiad differentiate reverse wrt(x) varying(x, n)
double stats(const double *x, int n) {
  assert(n > 0 && "n must be positive");
  double t0 = MPI_Wtime();
  int r;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS)
    return 0.0;
  MPI_Datatype t = MPI_DOUBLE;
  MPI_Op op = MY_OP;
  double *p = malloc(n * sizeof(double));
  check_for_error(p != NULL, "cannot allocate p", MPI_COMM_WORLD);
  if (!p)
    die("no memory");
  double s = 0.0, g, h;
  for (int i = 0; i < n; i++) {
    assert(x[i] > -100.0);
    p[i] = x[i] * x[i] * (r + 1);
    s += p[i];
  }
  int err = MPI_Allreduce(&s, &g, 1, MPI_DTYPE, op, MPI_COMM_WORLD);
  if (err != MPI_SUCCESS)
    abort();
  MPI_Allreduce(&s, &h, 1, t, MPI_MAX, MPI_COMM_WORLD);
  double q;
  MPI_Allreduce(&p[0], &q, 1, MPI_DTYPE, MPI_PROD, MPI_COMM_WORLD);
  double el = MPI_Wtime() - t0 + 0.0 * MPI_Wtick();
  if (el < 0.0)
    printf("the clock went back\n");
  assert(g >= h);
  free(p);
  return checked_sqrt(g) * h + s + q;
}

LC_DECLARE(stats)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  lc_init();
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 * sin(1.0 + i + 0.5 * lc_rank) + (i % 2 ? 0.9 : 0.6);
  lc_check("stats", stats, stats_b, stats_d, x, N);
  int rc = lc_finish();
  MPI_Finalize();
  return rc;
}
