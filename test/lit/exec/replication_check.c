// MPIAD_CHECK=1: the adjoint verifies on entry, with one extra collective,
// that every input it treats as replicated is bitwise equal on all ranks, and
// otherwise aborts naming the function, the input, its values and two ranks.
// Without the variable it adds no collective (counted with PMPI).
//
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// Equal inputs: the gradient is checked, with and without the check.
// RUN: %mpirun 1 %t ok | FileCheck %s --check-prefixes=CHECK,OFF --implicit-check-not=FAIL
// RUN: %mpirun 2 %t ok | FileCheck %s --check-prefixes=CHECK,OFF --implicit-check-not=FAIL
// RUN: env MPIAD_CHECK=1 %mpirun 2 %t ok | FileCheck %s --check-prefixes=CHECK,ON --implicit-check-not=FAIL
// RUN: %mpirun 3 %t ok | FileCheck %s --check-prefixes=CHECK,OFF --implicit-check-not=FAIL
// RUN: %mpirun 4 %t ok | FileCheck %s --check-prefixes=CHECK,OFF --implicit-check-not=FAIL
// RUN: env MPIAD_CHECK=1 %mpirun 4 %t ok | FileCheck %s --check-prefixes=CHECK,ON --implicit-check-not=FAIL
// A replicated length that differs (3 on rank 0, 2 on the last rank):
// RUN: not env MPIAD_CHECK=1 %mpirun 2 %t badm 2>&1 | FileCheck %s --check-prefix=BADM2
// RUN: not env MPIAD_CHECK=1 %mpirun 4 %t badm 2>&1 | FileCheck %s --check-prefix=BADM4
// A replicated scalar parameter and a replicated array that differ:
// RUN: not env MPIAD_CHECK=1 %mpirun 2 %t badc 2>&1 | FileCheck %s --check-prefix=BADC
// RUN: not env MPIAD_CHECK=1 %mpirun 4 %t badtheta 2>&1 | FileCheck %s --check-prefix=BADTHETA
// A negative replicated length is a message, not a segmentation fault, with or
// without the check:
// RUN: not %mpirun 2 %t negm 2>&1 | FileCheck %s --check-prefix=NEGM
//
// CHECK: gradient theta: {{.*}} PASS
// OFF: no collective added when off: {{.*}} PASS
// ON: one collective added when on: {{.*}} PASS
// CHECK: ALL PASSED
// BADM2: mpiad: MPIAD_CHECK: F_b: replicated input 'm' differs between ranks: 3 on rank 0, 2 on rank 1; list it in varying(...) if it may differ, or make it equal on every rank
// BADM4: mpiad: MPIAD_CHECK: F_b: replicated input 'm' differs between ranks: 3 on rank 0, 2 on rank 3; list it in varying(...) if it may differ, or make it equal on every rank
// BADC: mpiad: MPIAD_CHECK: F_b: replicated input 'c' differs between ranks: 0.5 on rank 0, 0.75 on rank 1;
// BADTHETA: mpiad: MPIAD_CHECK: F_b: replicated input 'theta' differs between ranks: rank 0 and rank 3 hold different values (3 and 3 elements)
// NEGM: mpiad: F_b: the length of 'theta' is negative (-5); the adjoint cannot allocate its gradient
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "pmpi_count.h"

#define NX 4

/* sum over ranks of sum_i x_i * c * sum_j theta_j^2, with theta and c
 * replicated: dJ/dtheta_j = 2 c theta_j * (sum over ranks and i of x_i). */
#pragma mpiad differentiate wrt(x, theta) replicated(theta[m], m, c) varying(x, n)
double F(const double *x, const double *theta, int m, double c, int n,
         MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += x[i] * c * theta[j] * theta[j];
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  const char *mode = argc > 1 ? argv[1] : "ok";
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int last = rank == size - 1 && size > 1;
  double x[NX], theta[3] = {0.3, -1.1, 0.7}, c = 0.5;
  int m = 3;
  hx_rand(x, NX, 11, rank, -1.0, 1.0);
  if (!strcmp(mode, "badm") && last)
    m = 2;
  if (!strcmp(mode, "badc") && last)
    c = 0.75;
  if (!strcmp(mode, "badtheta") && last)
    theta[1] = nextafter(theta[1], 0.0); /* one ulp apart */
  if (!strcmp(mode, "negm"))
    m = -5;

  double x_b[NX] = {0}, theta_b[3] = {0};
  long long calls0, bytes0, calls1, bytes1, calls2, bytes2;
  pmpi_count_get(&calls0, &bytes0);
  F(x, theta, m, c, NX, MPI_COMM_WORLD);
  pmpi_count_get(&calls1, &bytes1);
  F_b(x, x_b, theta, theta_b, m, c, NX, MPI_COMM_WORLD, 1.0);
  pmpi_count_get(&calls2, &bytes2);

  /* Expected, computed here: sum over ranks of sum_i x_i. */
  double sx = 0.0, all = 0.0;
  for (int i = 0; i < NX; i++)
    sx += x[i];
  MPI_Allreduce(&sx, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double err = 0.0;
  for (int j = 0; j < 3; j++)
    err = fmax(err, fabs(theta_b[j] - 2.0 * c * theta[j] * all));
  hx_check("gradient theta", err, 0.0, 1.0, 1e-12); /* err <= 1e-12 */
  /* The adjoint sums theta's shares once: the primal has no collective, the
   * adjoint one (the batch), and one more with MPIAD_CHECK=1. */
  long long primal = calls1 - calls0, adjoint = calls2 - calls1;
  if (mpiad_check_enabled())
    hx_check("one collective added when on", (double)adjoint,
             (double)(primal + 2), 0.0, 0.0);
  else
    hx_check("no collective added when off", (double)adjoint,
             (double)(primal + 1), 0.0, 0.0);
  hx_tape("tape");
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
