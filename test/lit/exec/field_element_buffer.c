// One number of one struct element as a message buffer (issue 40, found on
// the D2Q9 coursework's corner exchange by a tester who did not write
// mpiad): `MPI_Isend(&cells[n - 1].speeds[5], 1, MPI_DOUBLE, ...)` and the
// matching `MPI_Irecv(&cells[0].speeds[5], 1, ...)` around a ring, also
// blocking, were refused ("use its fields directly").  With a count of 1
// the address of one number of a field is a buffer of one element, as
// `&c.x` of a single struct is.  Against the closed form and central
// differences at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: mpiad_isend_fwd(&cells[n - 1].speeds[5], &cells_b[n - 1].speeds[5], 1, MPI_DOUBLE, right, 0, comm, &req[0]);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NS 9
typedef struct {
  double speeds[NS];
} t_speed;

// J = sum over ranks, cells and speeds of (k + 1) * speeds[k]^2 after the
// ring passes speeds[5] of the last cell into the first cell of the next
// rank, and speeds[2] of the first cell back into the last cell of the
// previous rank (blocking).
#pragma mpiad differentiate wrt(cells) output(return, cells) varying(cells)
double corner(t_speed *cells, int n, int left, int right, MPI_Comm comm) {
  MPI_Request req[2];
  MPI_Irecv(&cells[0].speeds[5], 1, MPI_DOUBLE, left, 0, comm, &req[1]);
  MPI_Isend(&cells[n - 1].speeds[5], 1, MPI_DOUBLE, right, 0, comm, &req[0]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Sendrecv(&cells[0].speeds[2], 1, MPI_DOUBLE, left, 1, &cells[n - 1].speeds[2], 1,
               MPI_DOUBLE, right, 1, comm, MPI_STATUS_IGNORE);
  double s = 0.0, g;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < NS; k++)
      s += (k + 1) * cells[i].speeds[k] * cells[i].speeds[k];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#define N 3
typedef struct {
  double *x;
  int left, right;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  t_speed cells[N];
  memcpy(cells, c->x, sizeof cells);
  return corner(cells, N, c->left, c->right, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  ctx_t c;
  double x[N * NS], dx[N * NS], xb[N * NS];
  c.x = x;
  c.left = (r + P - 1) % P;
  c.right = (r + 1) % P;
  hx_rand(x, N * NS, 61, r, -1.0, 1.0);
  hx_rand(dx, N * NS, 62, r, -1.0, 1.0);
  t_speed cells[N], cells_b[N];
  memcpy(cells, x, sizeof cells);
  memset(cells_b, 0, sizeof cells_b);
  double v = corner_b(cells, cells_b, N, c.left, c.right, MPI_COMM_WORLD, 1.0);
  hx_tape("corner_b");
  hx_check("value", v, J(&c), 1e-14, 1e-300);
  // Closed form: every number counts once where it stays and once more
  // where it is sent; the two it overwrites count nothing.
  t_speed *in = (t_speed *)x;
  double w5 = 2.0 * 6.0 * in[N - 1].speeds[5], w2 = 2.0 * 3.0 * in[0].speeds[2];
  hx_check_each("d/d last.speeds[5] (kept and sent)", cells_b[N - 1].speeds[5], 2.0 * w5, 1e-14, 1e-300);
  hx_check_each("d/d first.speeds[5] (overwritten)", cells_b[0].speeds[5], 0.0, 0.0, 0.0);
  hx_check_each("d/d first.speeds[2] (kept and sent)", cells_b[0].speeds[2], 2.0 * w2, 1e-14, 1e-300);
  hx_check_each("d/d last.speeds[2] (overwritten)", cells_b[N - 1].speeds[2], 0.0, 0.0, 0.0);
  hx_check_each("d/d middle.speeds[7]", cells_b[1].speeds[7], 2.0 * 8.0 * in[1].speeds[7], 1e-14, 1e-300);
  memcpy(xb, cells_b, sizeof cells_b);
  mpiad_input inp = {x, dx, N * NS, 0};
  double *xbp[1] = {xb};
  hx_grad("corner_b", J, &c, &inp, 1, xbp, 1e-6, 1e-8, 1e-12);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
