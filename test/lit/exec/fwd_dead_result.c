// Forward mode: a collective whose result is never read (or whose sent value
// carries no derivative) still takes part in the tangent communication on
// every rank, with a stand-in buffer where the variable carries no tangent.
// The tangent MPI_Allreduce used to get NULL for the unread result and crash.
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s --check-prefix=GEN
// CHECK: allreduce dead result: PASS
// CHECK: constant sent: PASS
// CHECK: every collective dead: PASS
// GEN: {{^}}double f_d(const double *x, double *x_d, MPI_Comm comm, double *f_dot) {
// GEN: double tot_d_unused = 0;
// GEN: MPI_Allreduce(&a_d, &tot_d_unused, 1, MPI_DOUBLE, MPI_SUM, comm);
// GEN: {{^}}double g_d(
// GEN: double c_d_zero = 0;
// GEN: MPI_Allreduce(&c_d_zero, &t_d, 1, MPI_DOUBLE, MPI_SUM, comm);
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#define PMAX 8

/* The brief's case: tot is never read, so it carries no tangent. */
#pragma mpiad differentiate forward wrt(x)
double f(const double *x, MPI_Comm comm) {
  double a = x[0] * x[0], tot = 0.0;
  MPI_Allreduce(&a, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  return a;
}

/* The other way round: the value sent carries no derivative, the result
 * does (t is overwritten by the sum of the constants). */
#pragma mpiad differentiate forward wrt(x)
double g(const double *x, MPI_Comm comm) {
  double c = 1.0, t = x[0];
  MPI_Allreduce(&c, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t * x[0];
}

/* Every collective with a separate result buffer, none of them read. */
#pragma mpiad differentiate forward wrt(x)
double h(const double *x, MPI_Comm comm) {
  double a[PMAX], g[2 * PMAX], rd[2], sc[2], ex[2], at[PMAX], ga[2 * PMAX];
  double rs[1], mx[2], pr[2], rsb[PMAX];
  int counts[PMAX];
  for (int i = 0; i < PMAX; i++) {
    a[i] = x[0] * x[0] + (double)i * x[0];
    counts[i] = 1;
  }
  MPI_Allgather(a, 2, MPI_DOUBLE, g, 2, MPI_DOUBLE, comm);
  MPI_Reduce(a, rd, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Reduce(a, pr, 2, MPI_DOUBLE, MPI_PROD, 0, comm);
  MPI_Allreduce(a, mx, 2, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Scan(a, sc, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Exscan(a, ex, 2, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Alltoall(a, 1, MPI_DOUBLE, at, 1, MPI_DOUBLE, comm);
  MPI_Gather(a, 2, MPI_DOUBLE, ga, 2, MPI_DOUBLE, 0, comm);
  MPI_Reduce_scatter(a, rs, counts, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Reduce_scatter_block(a, rsb, 1, MPI_DOUBLE, MPI_SUM, comm);
  return a[0] + a[1];
}

static int check(const char *what, double got, double want, MPI_Comm comm) {
  int bad = !(fabs(got - want) <= 1e-14 * fabs(want) + 1e-300), any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, comm);
  int r;
  MPI_Comm_rank(comm, &r);
  if (r == 0)
    printf("%s: %s\n", what, any ? "FAIL" : "PASS");
  if (bad)
    printf("  rank %d: got %.17g want %.17g\n", r, got, want);
  return any;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double x[1] = {0.7 + 0.25 * r}, dx[1] = {0.3 - 0.1 * r}, dot = 0.0;
  int fail = 0;

  double y = f_d(x, dx, MPI_COMM_WORLD, &dot);
  fail |= check("allreduce dead result", dot, 2.0 * x[0] * dx[0],
                MPI_COMM_WORLD);
  fail |= y != x[0] * x[0];

  /* t = p after the Allreduce, so g = p * x and its tangent p * dx */
  y = g_d(x, dx, MPI_COMM_WORLD, &dot);
  fail |= check("constant sent", dot, (double)p * dx[0], MPI_COMM_WORLD);
  fail |= y != (double)p * x[0];

  /* h = a[0] + a[1] = 2 x^2 + x, tangent (4 x + 1) dx */
  y = h_d(x, dx, MPI_COMM_WORLD, &dot);
  fail |= check("every collective dead", dot, (4.0 * x[0] + 1.0) * dx[0],
                MPI_COMM_WORLD);
  MPI_Finalize();
  return fail;
}
