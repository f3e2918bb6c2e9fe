// Local arrays initialised from values that carry derivatives become element
// assignments (missing elements are zero, as in C); constant initialisers are
// copied in.  Expected numbers by hand: f = x0*(2 x1) + 2.5 x0 (+ a[2] = 0),
// df/dx0 = 2 x1 + 2.5, df/dx1 = 2 x0.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s
// RUN: %mpirun 2 %t | FileCheck %s
// CHECK: value 17 grad 8.5 4 OK
#include <mpi.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(x)
double f(const double *x) {
  double a[3] = {x[0], 2.0 * x[1]};
  const double c[2] = {1.5, 2.5};
  return a[0] * a[1] + c[1] * x[0] + a[2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double x[2] = {2, 3}, xb[2] = {0, 0};
  double v = f_b(x, xb, 1.0);
  int ok = v == 17 && xb[0] == 8.5 && xb[1] == 4;
  if (r == 0)
    printf("value %g grad %g %g %s\n", v, xb[0], xb[1], ok ? "OK" : "WRONG");
  MPI_Finalize();
  return !ok;
}
