// assert, MPI clocks and return codes, handles through macros and locals,
// and helpers that end the program (exec/mpi_values_lowered.c runs them):
//   - assert(c) stays assert(c), with c lowered, in the forward sweep;
//   - MPI_Wtime() is an ordinary call;
//   - an MPI call used as a value becomes the call, then MPI_SUCCESS;
//   - MPI_DTYPE (a macro for MPI_DOUBLE) and `op` (a local set once to
//     MPI_SUM) are passed as what they are, and `op`, read by nothing else,
//     is dropped;
//   - fail() calls MPI_Abort, exit(1) ends the program: they stay calls in
//     the forward sweep and have nothing in the reverse sweep.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <assert.h>
#include <mpi.h>
#include <stdlib.h>
#define MPI_DTYPE MPI_DOUBLE

static void fail(MPI_Comm comm) { MPI_Abort(comm, 1); }

#pragma mpiad differentiate reverse wrt(x) varying(x)
double f(const double *x, MPI_Comm comm) {
  assert(x[0] > -1.0 && "x[0] in range");
  double t0 = MPI_Wtime();
  int r;
  if (MPI_Comm_rank(comm, &r) != MPI_SUCCESS)
    fail(comm);
  MPI_Op op = MPI_SUM;
  double s = x[0] * x[1] * (t0 > -1.0 ? 1.0 : 2.0), g;
  int err = MPI_Allreduce(&s, &g, 1, MPI_DTYPE, op, comm);
  if (err != MPI_SUCCESS)
    exit(1);
  return g;
}
// CHECK-LABEL: {{^}}double f_b(
// CHECK-NOT:  op
// CHECK:      /* forward sweep */
// CHECK-NEXT: assert(x[0] > -1.0 && ("x[0] in range"));
// CHECK-NEXT: t0 = MPI_Wtime();
// CHECK-NEXT: MPI_Comm_rank(comm, &r);
// CHECK-NEXT: if (MPI_SUCCESS != MPI_SUCCESS) {
// CHECK-NEXT:   fail(comm);
// CHECK-NEXT: }
// CHECK-NEXT: s = x[0] * x[1] * (t0 > -1.0 ? 1.0 : 2.0);
// CHECK-NEXT: MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: err = MPI_SUCCESS;
// CHECK-NEXT: if (err != MPI_SUCCESS) {
// CHECK-NEXT:   exit(1);
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_ret = g;
// CHECK:      /* reverse sweep */
// CHECK-NOT:  fail
// CHECK-NOT:  exit
// CHECK-NOT:  assert
// CHECK:      return mpiad_ret;
