// The runtime's guards are tested too (issue 21, part 5: removing the
// tape-underflow check failed no test).  A pop with nothing left on a stack
// stops the program with the runtime's message and a non-zero status,
// whichever stack and however the pop is made; it never returns garbage.
// RUN: %mpiad-cc %s -o %t
// RUN: %mpirun 1 %t ok | FileCheck %s --check-prefix=OK
// RUN: not %mpirun 1 %t f64 2>&1 | FileCheck %s --check-prefix=F64
// RUN: not %mpirun 1 %t i64 2>&1 | FileCheck %s --check-prefix=I64
// RUN: not %mpirun 1 %t array 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not %mpirun 2 %t f64 2>&1 | FileCheck %s --check-prefix=F64
// OK: balanced: 2.5 7
// F64: mpiad: tape underflow (f64 stack)
// F64-NOT: garbage
// I64: mpiad: tape underflow (i64 stack)
// I64-NOT: garbage
// ARRAY: mpiad: tape underflow (f64 stack)
// ARRAY-NOT: garbage
// (No '#pragma mpiad' here: mpiad-cc compiles the file as given, so it
// includes the runtime's header itself.)
#include "mpiad.h"
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "ok";
  mpiad_push_f64(2.5);
  mpiad_push_i64(7);
  long long k = mpiad_pop_i64();
  double v = mpiad_pop_f64();
  if (!strcmp(mode, "ok")) {
    printf("balanced: %g %lld\n", v, k);
  } else if (!strcmp(mode, "f64")) {
    printf("garbage: %g\n", mpiad_pop_f64());
  } else if (!strcmp(mode, "i64")) {
    printf("garbage: %lld\n", mpiad_pop_i64());
  } else {
    double a[3] = {1, 2, 3};
    mpiad_push_f64_array(a, 2);
    mpiad_pop_f64_array(a, 3);
    printf("garbage: %g\n", a[0]);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
