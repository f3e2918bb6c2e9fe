// After F_b returns, an output holds what F would have written, even when
// the reverse sweep had to restore its old values (it keeps a copy of the
// final values, whose length it infers from the loops that write them).
// Checked for an in-place update (wrt and output) and a pure output.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s
// RUN: %mpirun 2 %t | FileCheck %s
// CHECK: in-place OK
// CHECK: pure output OK
#include <mpi.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(u) output(u) varying(u)
void smooth(double *u, int n) {
  for (int i = 1; i < n - 1; i++)
    u[i] = u[i] * u[i] + 0.1 * u[i + 1];
}

#pragma mpiad differentiate wrt(x) output(y) varying(x)
void twice(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i];
  for (int i = 0; i < n; i++)
    y[i] = y[i] * y[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double u[5] = {0, 1, 2, 3, 4}, v[5] = {0, 1, 2, 3, 4}, ub[5] = {1, 1, 1, 1, 1};
  smooth(v, 5);
  smooth_b(u, ub, 5);
  for (int i = 0; i < 5; i++)
    ok &= u[i] == v[i];
  if (r == 0)
    printf("in-place %s\n", ok ? "OK" : "WRONG");
  double x[3] = {1, 2, 3}, xb[3] = {0}, y[3], z[3], yb[3] = {1, 1, 1};
  twice(x, z, 3);
  twice_b(x, xb, y, yb, 3);
  ok = 1;
  for (int i = 0; i < 3; i++)
    ok &= y[i] == z[i] && xb[i] == 2 * x[i];
  if (r == 0)
    printf("pure output %s\n", ok ? "OK" : "WRONG");
  MPI_Finalize();
  return !ok;
}
