// Adjoints whose last loop runs fused with its reverse (codegen/sweep-fusion.c)
// give the gradient of the global objective: a dot product summed over ranks
// and scaled, and a weighted sum of squares with a replicated weight, against
// central differences at 1, 2 and 3 ranks; the tape stays empty.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include "../Inputs/harness.h"

#pragma mpiad differentiate wrt(x, y) varying(x, y)
double dot(const double *x, const double *y, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return 2.0 * J;
}

#pragma mpiad differentiate wrt(x) replicated(c, n) varying(x)
double wsq(const double *x, double c, int n, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += c * x[i] * x[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J - 1.0;
}

enum { N = 7 };
static double gx[N], gy[N];

static double J_dot(void *u) {
  (void)u;
  return dot(gx, gy, N, MPI_COMM_WORLD);
}
static double J_wsq(void *u) {
  (void)u;
  return wsq(gx, 0.75, N, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double dx[N], dy[N], xb[N] = {0}, yb[N] = {0};
  hx_rand(gx, N, 1, hx_rank_g, -1.0, 1.0);
  hx_rand(gy, N, 2, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 3, hx_rank_g, -1.0, 1.0);
  hx_rand(dy, N, 4, hx_rank_g, -1.0, 1.0);
  double v = dot_b(gx, xb, gy, yb, N, MPI_COMM_WORLD, 1.0);
  hx_check("dot value", v, J_dot(NULL), 0.0, 1e-300);
  hx_tape("dot_b");
  mpiad_input in[2] = {{gx, dx, N, 0}, {gy, dy, N, 0}};
  double *b[2] = {xb, yb};
  hx_grad("dot", J_dot, NULL, in, 2, b, 1e-6, 1e-8, 1e-12);
  double xb2[N] = {0};
  wsq_b(gx, xb2, 0.75, N, MPI_COMM_WORLD, 1.0);
  hx_tape("wsq_b");
  double *b2[1] = {xb2};
  hx_grad("wsq", J_wsq, NULL, in, 1, b2, 1e-6, 1e-8, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
