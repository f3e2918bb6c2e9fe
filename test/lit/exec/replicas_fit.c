// replicas(w, y): loss_bv fits R independent replicas at once (the NNPDF
// case; tool/lib/Replicas.cpp).  A one-layer model with a tanh activation,
// the data X shared and distributed over ranks, the weights w and the
// pseudo-data y per replica.  For each replica r, with a different seed per
// replica: the value equals the primal on replica r's inputs, the gradient
// matches central differences of the primal (independent of the tool) and
// loss_b on replica r.  Perturbing replica 1 leaves replicas 0 and 2 bitwise
// unchanged.  loss_bv makes as many collective calls as one loss_b (R-fold
// fewer than R calls of loss_b), records no more per replica than loss_b
// (tanh(z[r]) once per sample, CallHoist.cpp, and no z[r] at the
// `z[r] +=`), and leaves the tape empty.  R = 1 gives loss_b's results.
// The tanh of all replicas is computed before their loop, by the runtime's
// vector math (VectorMath.cpp; libmvec, not always bitwise libm's tanh:
// the values agree with loss_b's to 1e-13).
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double loss_b(const double *w, double *w_b, const double *X, const double *y, int n, int d, MPI_Comm comm, double loss_bar)
// GEN: No replica reads another replica's values
// GEN: static void mpiad_loss_bv(int R, const double *w, double *w_b, const double *X, const double *y, int n, int d, MPI_Comm comm, double *loss_val, double *loss_val_b)
// GEN: w_rep[k * R + r] = w[r * (d + 1) + k];
// GEN: /* z: one value per replica, z[r] */
// GEN-NEXT: z[r] = w_rep[d * R + r];
// GEN-NOT: mpiad_push
// GEN: z[r] += X[i * d + j] * w_rep[j * R + r];
// GEN-NOT: mpiad_push_f64_array(&z
// GEN: const double *mpiad_tanh_of = mpiad_vec_tanh(z, R, 0);
// GEN-NEXT: mpiad_push_f64_array(mpiad_h1_rep, R);
// GEN-NEXT: mpiad_push_f64_array(e_rep, R);
// GEN-NEXT: for (int r = 0; r < R; r++) {
// GEN-NEXT: mpiad_h1_rep[r] = mpiad_tanh_of[r];
// GEN-NEXT: e_rep[r] = mpiad_h1_rep[r] - y_rep[i * R + r];
// GEN-NOT: mpiad_pop
// GEN: MPI_Allreduce(MPI_IN_PLACE, l, R, MPI_DOUBLE, MPI_SUM, comm);
// GEN: /* reverse sweep */
// GEN-NOT: MPI_Allreduce
// GEN: z_b[r] += mpiad_h1_b * (1.0 - mpiad_h1_rep[r] * mpiad_h1_rep[r]);
// GEN-NOT: mpiad_pop_f64()
// GEN: mpiad_pop_f64_array(e_rep, R);
// GEN-NEXT: mpiad_pop_f64_array(mpiad_h1_rep, R);
// GEN-NOT: MPI_Allreduce
// GEN: mpiad_batch_allreduce(&mpiad_sum);
// GEN: void loss_bv(int R, const double *w, double *w_b, const double *X, const double *y, int n, int d, MPI_Comm comm, const double *loss_bar, double *loss_val)
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pmpi_count.h"

#pragma mpiad differentiate wrt(w) replicated(w, n, d) varying(X, y) replicas(w, y)
double loss(const double *w, const double *X, const double *y, int n, int d,
            MPI_Comm comm) {
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double z = w[d];                  /* the bias */
    for (int j = 0; j < d; j++)
      z += X[i * d + j] * w[j];
    double e = tanh(z) - y[i];
    l += e * e;
  }
  MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_DOUBLE, MPI_SUM, comm);
  double reg = 0.0;
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  return l / 2.0 + 0.01 * reg;
}

#define NR 3 /* replicas */
#define D 4  /* features; w has D + 1 entries */
#define NL 5 /* samples per rank */
#define LW (D + 1)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double X[NL * D], w[NR * LW], y[NR * NL], dw[LW];
  hx_rand(X, NL * D, 1, hx_rank_g, -1.0, 1.0);
  hx_rand(w, NR * LW, 2, HX_REP, -0.5, 0.5);
  hx_rand(y, NR * NL, 3, hx_rank_g, -0.8, 0.8);
  hx_rand(dw, LW, 4, HX_REP, -1.0, 1.0);
  double bar[NR] = {1.0, 0.5, -2.0}, val[NR], w_b[NR * LW];
  memset(w_b, 0, sizeof w_b);

  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  loss_bv(NR, w, w_b, X, y, NL, D, comm, bar, val);
  pmpi_count_get(&c1, &b1);
  double g1[LW];
  memset(g1, 0, sizeof g1);
  loss_b(w, g1, X, y, NL, D, comm, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("loss_bv");
  hx_check("collectives of loss_bv = those of one loss_b", (double)(c1 - c0),
           (double)(c2 - c1), 0.0, 1.0);

  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *wr = w + r * LW, *yr = y + r * NL;
    double want = loss(wr, X, yr, NL, D, comm);
    snprintf(label, sizeof label, "replica %d: value", r);
    hx_check(label, val[r], want, 1e-13, 1e-300);
    /* central differences of the primal along dw, times the seed */
    double h = 1e-6, wp[LW], wm[LW];
    for (int k = 0; k < LW; k++) {
      wp[k] = wr[k] + h * dw[k];
      wm[k] = wr[k] - h * dw[k];
    }
    double fd = (loss(wp, X, yr, NL, D, comm) - loss(wm, X, yr, NL, D, comm)) /
                (2 * h);
    double ad = 0.0;
    for (int k = 0; k < LW; k++)
      ad += dw[k] * w_b[r * LW + k];
    snprintf(label, sizeof label, "replica %d: gradient vs central differences", r);
    hx_check(label, ad, bar[r] * fd, 1e-7, 1e-10);
    /* loss_b on replica r, seeded alike */
    double g[LW];
    memset(g, 0, sizeof g);
    double v = loss_b(wr, g, X, yr, NL, D, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: gradient = loss_b's", r);
    hx_check_vec(label, w_b + r * LW, g, LW, 1e-12, 1e-14);
    snprintf(label, sizeof label, "replica %d: value = loss_b's", r);
    hx_check(label, val[r], v, 1e-13, 1e-300);
  }

  /* The tape: loss_bv records what R calls of loss_b record, no more. */
  mpiad_tape_reset_peak();
  double wb3[NR * LW];
  memset(wb3, 0, sizeof wb3);
  loss_bv(NR, w, wb3, X, y, NL, D, comm, bar, val);
  double peak_bv = (double)mpiad_tape_peak_bytes();
  mpiad_tape_reset_peak();
  loss_b(w, g1, X, y, NL, D, comm, 1.0);
  double peak_b = (double)mpiad_tape_peak_bytes();
  hx_check_each("tape of loss_bv <= R x tape of loss_b (+ 256 bytes of pointers)",
                peak_bv <= NR * peak_b + 256 ? 1.0 : 0.0, 1.0, 0.0, 1.0);

  /* One replica: exactly loss_b. */
  double v1, wb1[LW], g0[LW];
  memset(wb1, 0, sizeof wb1);
  memset(g0, 0, sizeof g0);
  loss_bv(1, w, wb1, X, y, NL, D, comm, bar, &v1);
  double v0 = loss_b(w, g0, X, y, NL, D, comm, bar[0]);
  int same1 = v1 == v0;
  for (int k = 0; k < LW; k++)
    same1 &= wb1[k] == g0[k];
  hx_check_each("R = 1: bitwise loss_b's value and gradient", same1, 1.0, 0.0, 1.0);

  /* Independence: change replica 1's weights and data; replicas 0 and 2
     must not move by a single bit. */
  double w2[NR * LW], y2[NR * NL], val2[NR], w_b2[NR * LW];
  memcpy(w2, w, sizeof w);
  memcpy(y2, y, sizeof y);
  memset(w_b2, 0, sizeof w_b2);
  for (int k = 0; k < LW; k++)
    w2[LW + k] += 0.25;
  for (int i = 0; i < NL; i++)
    y2[NL + i] -= 0.125;
  loss_bv(NR, w2, w_b2, X, y2, NL, D, comm, bar, val2);
  int same = val2[0] == val[0] && val2[2] == val[2] && val2[1] != val[1];
  for (int k = 0; k < LW; k++)
    same &= w_b2[k] == w_b[k] && w_b2[2 * LW + k] == w_b[2 * LW + k];
  hx_check_each("replicas 0 and 2 unchanged when replica 1 changes", same, 1.0,
                0.0, 1.0);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
