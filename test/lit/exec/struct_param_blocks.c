// Application state as codes keep it (issue 40): a parameter block passed
// by value (`const t_param prm`, as the D2Q9 coursework and miniWeather pass
// theirs to every helper) in wrt(...), with scalar and array floating
// fields and an int field, its adjoint returned through `t_param *prm_b`;
// a struct whose only floating field is an array (`double speeds[4]`) as a
// wrt/output pointer, a scratch array of it whose length comes from the
// block's int field (`prm.n`) and from a second block of ints; the blocks
// passed on by value to helpers.  Equal on all ranks (replicated: the
// gradient of prm is summed over ranks) and different per rank (varying:
// each rank's own).  Reverse mode against central differences and an
// independent closed form, forward mode against reverse mode, 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double run_b(const t_param prm, t_param *prm_b, t_cell *cells, t_cell *cells_b, t_cell *tmp, t_info info, MPI_Comm comm, double run_bar)
// GEN: t_param prm_b_acc = {0};
// GEN: t_cell *tmp_b = mpiad_alloc_zeroed((info.rows - 1) * prm.n + (prm.n - 1) + 1, sizeof(t_cell), "run_b", "tmp", comm);
// GEN: mpiad_batch_add_f64(&mpiad_sum, (const double *)prm_b_acc.w, (double *)(prm_b->w), 3);
// GEN: mpiad_batch_add_f64(&mpiad_sum, &prm_b_acc.a, &(prm_b->a), 1);
// GEN: double run_d(const t_param prm, t_param prm_d, t_cell *cells, t_cell *cells_d, t_cell *tmp, t_info info, MPI_Comm comm, double *run_dot)
// GEN: double own_b(const t_param prm, t_param *prm_b, const t_cell *cells, t_cell *cells_b, MPI_Comm comm, double own_bar)
// GEN: for (int mpiad_k = 0; mpiad_k < 3; mpiad_k++) {
// GEN-NEXT: prm_b->w[mpiad_k] += prm_b_acc.w[mpiad_k];
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NS 4
typedef struct {
  int n;         /* cells per row */
  double a;      /* coupling */
  double unused; /* never read: its adjoint stays zero */
  double w[3];   /* weights */
} t_param;
typedef struct {
  double speeds[NS];
} t_cell;
typedef struct {
  int rows, rank;
} t_info;

static double weight(const t_param prm, int k) { return prm.w[k % 3] * prm.a; }

static void relax(const t_param prm, t_cell *cells, t_cell *tmp, t_info info) {
  for (int j = 0; j < info.rows; j++)
    for (int i = 0; i < prm.n; i++)
      for (int k = 0; k < NS; k++)
        tmp[j * prm.n + i].speeds[k] =
            cells[j * prm.n + i].speeds[k] +
            weight(prm, k) * sin(cells[j * prm.n + (i + 1) % prm.n].speeds[(k + 1) % NS]);
  for (int j = 0; j < info.rows; j++)
    for (int i = 0; i < prm.n; i++)
      for (int k = 0; k < NS; k++)
        cells[j * prm.n + i].speeds[k] = 0.5 * tmp[j * prm.n + i].speeds[k];
}

#pragma mpiad differentiate wrt(prm, cells) output(return, cells) replicated(prm) varying(cells) scratch(tmp)
#pragma mpiad differentiate forward wrt(prm, cells) output(return, cells) replicated(prm) varying(cells) scratch(tmp)
double run(const t_param prm, t_cell *cells, t_cell *tmp, t_info info, MPI_Comm comm) {
  for (int step = 0; step < 2; step++)
    relax(prm, cells, tmp, info);
  double s = 0.0, g;
  for (int c = 0; c < info.rows * prm.n; c++)
    for (int k = 0; k < NS; k++)
      s += cells[c].speeds[k] * cells[c].speeds[k];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

// Each rank's own block (varying): J = sum over ranks of
// a_r * sum_c sum_k w_r[k % 3] * speeds[c][k]^2, so dJ/dw_r[m] on rank r is
// a_r * sum of speeds^2 over k = m mod 3, dJ/da_r the sum with the weights.
#pragma mpiad differentiate wrt(prm, cells) varying(prm, cells)
double own(const t_param prm, const t_cell *cells, MPI_Comm comm) {
  double s = 0.0, g;
  for (int c = 0; c < prm.n; c++)
    for (int k = 0; k < NS; k++)
      s += prm.a * prm.w[k % 3] * cells[c].speeds[k] * cells[c].speeds[k];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#define N 3
#define ROWS 2
#define NC (N * ROWS)
#define NX (4 + NC * NS) /* a, w[0..2], the cells */

typedef struct {
  double *x;
  t_info info;
} ctx_t;

static void unpack(const double *x, t_param *prm, t_cell *cells) {
  prm->n = N;
  prm->a = x[0];
  prm->unused = 7.0;
  for (int m = 0; m < 3; m++)
    prm->w[m] = x[1 + m];
  memcpy(cells, x + 4, NC * NS * sizeof(double));
}

static double J(void *p) {
  ctx_t *c = p;
  t_param prm;
  t_cell cells[NC], tmp[NC];
  unpack(c->x, &prm, cells);
  return run(prm, cells, tmp, c->info, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g;
  ctx_t c;
  double x[NX], dx[NX], xb[NX];
  c.x = x;
  c.info.rows = ROWS;
  c.info.rank = r;
  hx_rand(x, 4, 31, HX_REP, 0.2, 0.8);
  hx_rand(x + 4, NC * NS, 32, r, -1.0, 1.0);
  hx_rand(dx, 4, 33, HX_REP, -1.0, 1.0);
  hx_rand(dx + 4, NC * NS, 34, r, -1.0, 1.0);

  // Replicated block.
  t_param prm, prm_b, prm_d;
  t_cell cells[NC], cells_b[NC], tmp[NC], cells_d[NC];
  unpack(x, &prm, cells);
  memset(&prm_b, 0, sizeof prm_b);
  memset(cells_b, 0, sizeof cells_b);
  double v = run_b(prm, &prm_b, cells, cells_b, tmp, c.info, MPI_COMM_WORLD, 1.0);
  hx_tape("run_b");
  hx_check("run_b value", v, J(&c), 1e-14, 1e-300);
  hx_check("unread field's adjoint", prm_b.unused, 0.0, 0.0, 0.0);
  hx_check_each("prm_b equal on all ranks", hx_sum(prm_b.a) / hx_size_g, prm_b.a, 1e-14, 1e-300);
  // The replicated inputs' adjoint counts once: rank 0's.
  xb[0] = r == 0 ? prm_b.a : 0.0;
  for (int m = 0; m < 3; m++)
    xb[1 + m] = r == 0 ? prm_b.w[m] : 0.0;
  memcpy(xb + 4, cells_b, sizeof cells_b);
  mpiad_input in = {x, dx, NX, 0};
  double *xbp[1] = {xb};
  hx_grad("run_b", J, &c, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
  unpack(x, &prm, cells);
  unpack(dx, &prm_d, cells_d);
  double dot = 0.0;
  run_d(prm, prm_d, cells, cells_d, tmp, c.info, MPI_COMM_WORLD, &dot);
  hx_dot_test("run_d vs run_b", dot, &in, 1, xbp, 1e-12);

  // Each rank's own block.
  unpack(x, &prm, cells);
  prm.a += 0.1 * r;
  prm.w[1] -= 0.05 * r;
  memset(&prm_b, 0, sizeof prm_b);
  memset(cells_b, 0, sizeof cells_b);
  v = own_b(prm, &prm_b, cells, cells_b, MPI_COMM_WORLD, 1.0);
  hx_tape("own_b");
  double sq[3] = {0, 0, 0}, want_a = 0.0, val = 0.0;
  for (int cc = 0; cc < N; cc++)
    for (int k = 0; k < NS; k++) {
      double s2 = cells[cc].speeds[k] * cells[cc].speeds[k];
      sq[k % 3] += s2;
      want_a += prm.w[k % 3] * s2;
      val += prm.a * prm.w[k % 3] * s2;
    }
  hx_check("own_b value", v, hx_sum(val), 1e-14, 1e-300);
  hx_check_each("own_b d/da (this rank's)", prm_b.a, want_a, 1e-13, 1e-300);
  for (int m = 0; m < 3; m++)
    hx_check_each("own_b d/dw (this rank's)", prm_b.w[m], prm.a * sq[m], 1e-13, 1e-300);
  hx_check_each("own_b d/dcells[1].speeds[2]", cells_b[1].speeds[2],
                2.0 * prm.a * prm.w[2] * cells[1].speeds[2], 1e-13, 1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
