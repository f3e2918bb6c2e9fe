// The math calls of a loop over replicas, evaluated for all replicas at once
// before the loop by the runtime's vector math (tool/lib/VectorMath.cpp,
// runtime/vmath.c).  A loss with tanh of a per-replica scalar (z[r]), sin
// and cos of per-replica weights (w_rep[k * R + r]: from &w_rep[k * R]),
// and calls that must stay in the loop: exp of an expression, and exp of a
// per-replica scalar assigned in the same loop before it (u[r], an array
// because a later loop reads it: the value before the loop is not the one
// read).  For R = 1 to 9 (whole AVX2 vectors
// and remainders) and each replica: the value and gradient equal loss_b's
// on that replica (to 1e-13 and 1e-12: libmvec is not always bitwise
// libm), and the gradient matches central differences of the primal; in
// forward mode, loss_dv's values and tangents equal loss_d's; with
// MPIAD_VECTOR_MATH=libm (the fifth RUN line), the values and tangents
// bitwise, the gradients to 1e-13 (loss_b sums its loop's gradient for a
// seed of 1 and scales the sum, DeferredSeed.cpp; loss_bv does not).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env MPIAD_VECTOR_MATH=libm %mpirun 2 %t libm | FileCheck %s --implicit-check-not=FAIL
// RUN: env MPIAD_VECTOR_MATH=sse %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_loss_bv(
// GEN: const double *mpiad_sin_of = mpiad_vec_sin(&w_rep[0], R, 0);
// GEN-NEXT: const double *mpiad_cos_of = mpiad_vec_cos(&w_rep[R], R, 1);
// GEN-NEXT: for (int r = 0; r < R; r++) {
// GEN: = mpiad_sin_of[r];
// GEN: = mpiad_cos_of[r];
// GEN: const double *mpiad_tanh_of = mpiad_vec_tanh(z, R, 0);
// GEN-NOT: mpiad_vec_
// GEN: = mpiad_tanh_of[r];
// GEN: exp(0.5 * z[r])
// GEN: u[r] = 0.3 * z[r] + s[r];
// GEN-NEXT: g = exp(u[r]);
// GEN: /* reverse sweep */
// GEN-NOT: mpiad_vec_
// GEN: void loss_bv(
// GEN-LABEL: void loss_dv(
// GEN: const double *mpiad_sin_of = mpiad_vec_sin(&w_rep[0], R, 0);
// GEN: const double *mpiad_tanh_of = mpiad_vec_tanh(z, R, 0);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#pragma mpiad differentiate wrt(w) replicated(w, n, d) varying(X, y) replicas(w, y)
#pragma mpiad differentiate forward wrt(w) replicas(w, y)
double loss(const double *w, const double *X, const double *y, int n, int d,
            MPI_Comm comm) {
  double s = sin(w[0]);
  double c = cos(w[1]);
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double z = w[d];
    for (int j = 0; j < d; j++)
      z += X[i * d + j] * w[j];
    double t = tanh(z);
    double q = exp(0.5 * z);
    double u = 0.3 * z + s;
    double g = exp(u);
    double e = t + 0.1 * c * q + 0.05 * g - y[i];
    for (int j = 0; j < d; j++)
      e += 0.01 * u * X[i * d + j];
    l += e * e;
  }
  MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_DOUBLE, MPI_SUM, comm);
  return l / 2.0;
}

#define RMAX 9
#define D 3 /* features; w has D + 1 entries */
#define NL 4 /* samples per rank */
#define LW (D + 1)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  int exact = argc > 1 && !strcmp(argv[1], "libm");
  double X[NL * D], w[RMAX * LW], y[RMAX * NL], dw[LW];
  hx_rand(X, NL * D, 1, hx_rank_g, -1.0, 1.0);
  hx_rand(w, RMAX * LW, 2, HX_REP, -0.7, 0.7);
  hx_rand(y, RMAX * NL, 3, hx_rank_g, -0.8, 0.8);
  hx_rand(dw, LW, 4, HX_REP, -1.0, 1.0);
  for (int R = 1; R <= RMAX; R++) {
    double bar[RMAX], val[RMAX], w_b[RMAX * LW];
    for (int r = 0; r < R; r++)
      bar[r] = 1.0 - 0.25 * r;
    memset(w_b, 0, sizeof w_b);
    loss_bv(R, w, w_b, X, y, NL, D, comm, bar, val);
    char label[128];
    snprintf(label, sizeof label, "R = %d", R);
    hx_tape(label);
    for (int r = 0; r < R; r++) {
      const double *wr = w + r * LW, *yr = y + r * NL;
      double g[LW];
      memset(g, 0, sizeof g);
      double v = loss_b(wr, g, X, yr, NL, D, comm, bar[r]);
      snprintf(label, sizeof label, "R = %d, replica %d: value = loss_b's", R, r);
      hx_check(label, val[r], v, exact ? 0.0 : 1e-13, 1e-300);
      snprintf(label, sizeof label, "R = %d, replica %d: gradient = loss_b's", R, r);
      /* not bitwise even with libm: loss_b runs its loop's adjoint inside
         the loop for a seed of 1 and scales the sum (DeferredSeed.cpp),
         loss_bv scales each sample's term */
      hx_check_vec(label, w_b + r * LW, g, LW, exact ? 1e-13 : 1e-12,
                   exact ? 1e-15 : 1e-14);
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
      snprintf(label, sizeof label,
               "R = %d, replica %d: gradient vs central differences", R, r);
      hx_check(label, ad, bar[r] * fd, 1e-7, 1e-10);
    }
    /* Forward mode: loss_dv along dw in every replica, against loss_d. */
    double wd[RMAX * LW], fval[RMAX], fdot[RMAX];
    for (int r = 0; r < R; r++)
      for (int k = 0; k < LW; k++)
        wd[r * LW + k] = dw[k];
    loss_dv(R, w, wd, X, y, NL, D, comm, fval, fdot);
    for (int r = 0; r < R; r++) {
      double dot = 0.0, wdr[LW];
      for (int k = 0; k < LW; k++)
        wdr[k] = dw[k];
      double v = loss_d(w + r * LW, wdr, X, y + r * NL, NL, D, comm, &dot);
      snprintf(label, sizeof label, "R = %d, replica %d: tangent = loss_d's", R, r);
      hx_check(label, fdot[r], dot, exact ? 0.0 : 1e-12, exact ? 0.0 : 1e-14);
      snprintf(label, sizeof label, "R = %d, replica %d: value (tangent) = loss_d's", R, r);
      hx_check(label, fval[r], v, exact ? 0.0 : 1e-13, 1e-300);
    }
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
