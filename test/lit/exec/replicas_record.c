// replicas(...): the values a loop over the replicas records at every
// replica, recorded once per loop (tool/lib/ReplicaRecord.cpp).  In the
// per-sample loop below, t, u and c are scalars recorded at every replica:
// each gets a buffer of R values, t_rep[r], pushed as one array before the
// loop and popped after its reverse; the float f too (f32).  q is stored as
// [R] (it lives across the inner j loop): its element records become one
// array record of q per loop.  Left per replica, and exact: b (assigned
// twice in one replica's iteration), m[r] (recorded under a per-replica
// branch), and everything in a loop that calls a helper whose forward
// helper pushes its own records (soft, between the loop's own records).
// Each replica's value and gradient against central differences of the
// primal (independent of the tool) and against G_b on that replica, at 1-4
// ranks; the tape of G_bv is no more than R times G_b's.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_G_bv(
// GEN: double *t_rep = mpiad_alloc_zeroed(R, sizeof(double), "mpiad_G_bv", "t_rep", comm);
// GEN: float *f_rep = mpiad_alloc_zeroed(R, sizeof(float), "mpiad_G_bv", "f_rep", comm);
// GEN: for (int i = 0; i < n; i++) {
// GEN-NEXT: mpiad_push_f64_array(t_rep, R);
// GEN-NEXT: mpiad_push_f64_array(u_rep, R);
// GEN-NEXT: mpiad_push_f64_array(c_rep, R);
// GEN-NEXT: mpiad_push_f32_array(f_rep, R);
// GEN-NEXT: mpiad_push_f64_array(q, R);
// GEN-NEXT: for (int r = 0; r < R; r++) {
// GEN: t_rep[r] = sin(a);
// GEN: mpiad_push_f64(b);
// GEN-NEXT: b = a * w_rep[3 * R + r];
// GEN-NEXT: mpiad_push_f64(b);
// GEN: mpiad_push_f64(m[r]);
// GEN: mpiad_c1 = mpiad_fwd_soft(t_rep[r]);
// GEN: f_rep[r] = (float)(t_rep[r] * w_rep[2 * R + r]);
// GEN-NOT: mpiad_push_f64(q
// GEN: mpiad_push_f64_array(q, R);
// GEN-NEXT: for (int r = 0; r < R; r++) {
// GEN-NEXT: q[r] = cos(w_rep[2 * R + r] * x[i]);
// GEN: /* reverse sweep */
// GEN: for (int i = n - 1; i >= 0; i--) {
// GEN-NEXT: for (int r = R - 1; r >= 0; r--) {
// GEN-NOT: mpiad_pop
// GEN: q_b[r] = 0;
// GEN-NEXT: }
// GEN-NEXT: mpiad_pop_f64_array(q, R);
// GEN: f_b += 0.5 * (l_b[r] * f_rep[r]);
// GEN: mpiad_rev_soft(t_rep[r], &t_b, mpiad_c1_b);
// GEN: m[r] = mpiad_pop_f64();
// GEN: b = mpiad_pop_f64();
// GEN: b = mpiad_pop_f64();
// GEN-NOT: mpiad_pop
// GEN: }
// GEN-NEXT: mpiad_pop_f64_array(q, R);
// GEN-NEXT: mpiad_pop_f32_array(f_rep, R);
// GEN-NEXT: mpiad_pop_f64_array(c_rep, R);
// GEN-NEXT: mpiad_pop_f64_array(u_rep, R);
// GEN-NEXT: mpiad_pop_f64_array(t_rep, R);
// GEN: free(t_rep);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static double soft(double a) {
  double s = a * a;
  return a / (1.0 + s);
}

#pragma mpiad differentiate wrt(w) replicated(w[4], n) varying(x) replicas(w[4])
double G(const double *w, const double *x, int n, MPI_Comm comm) {
  double l = 0.0, m = 0.0;
  for (int i = 0; i < n; i++) {
    double a = w[0] * x[i] + w[1];
    double t = sin(a);
    double u = t * t * w[2];
    l += u * cos(a);
    double b = a * w[3];
    b = b * b + t;
    l += b * x[i];
    double c = exp(-a * a);
    if (c > 0.5)
      m += c * t;
    else
      m -= c * w[3];
    l += soft(t);
    float f = (float)(t * w[2]);
    l += 0.5 * f * f;
    double q = sin(w[1] * x[i]);
    l += q * q;
    for (int j = 0; j < 2; j++)
      l += w[j] * x[i] * m;
    q = cos(w[2] * x[i]);
    l += q * q * m;
  }
  double g = l + m;
  MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#define NR 5
#define NW 4
#define NX 7

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  /* The weights of each replica are the same on every rank (replicated),
     different from one replica to the next; the data x differ per rank. */
  double w[NR * NW], dw[NR * NW], x[NX];
  hx_rand(w, NR * NW, 41, 0, -0.9, 0.9);
  hx_rand(dw, NR * NW, 42, 0, -1.0, 1.0);
  hx_rand(x, NX, 43, hx_rank_g, -1.2, 1.2);
  double bar[NR] = {1.0, -0.5, 2.0, 0.25, -1.5}, val[NR], w_b[NR * NW];
  memset(w_b, 0, sizeof w_b);
  mpiad_tape_reset_peak();
  G_bv(NR, w, w_b, x, NX, comm, bar, val);
  double peak_bv = (double)mpiad_tape_peak_bytes();
  hx_tape("G_bv");
  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *wr = w + r * NW, *dr = dw + r * NW;
    snprintf(label, sizeof label, "replica %d: value", r);
    hx_check_each(label, val[r], G(wr, x, NX, comm), 1e-13, 1e-300);
    /* f is a float: central differences with a step it resolves */
    double h = 1e-4, wp[NW], wm[NW];
    for (int k = 0; k < NW; k++) {
      wp[k] = wr[k] + h * dr[k];
      wm[k] = wr[k] - h * dr[k];
    }
    double fd = (G(wp, x, NX, comm) - G(wm, x, NX, comm)) / (2 * h);
    double ad = 0.0;
    for (int k = 0; k < NW; k++)
      ad += dr[k] * w_b[r * NW + k];
    snprintf(label, sizeof label, "replica %d: G_bv vs central differences", r);
    hx_check(label, ad, bar[r] * fd, 1e-4, 1e-6);
    double g[NW];
    memset(g, 0, sizeof g);
    double v = G_b(wr, g, x, NX, comm, bar[r]);
    snprintf(label, sizeof label, "replica %d: value = G_b's", r);
    hx_check_each(label, val[r], v, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: gradient = G_b's", r);
    hx_check_vec(label, w_b + r * NW, g, NW, 1e-12, 1e-14);
  }
  mpiad_tape_reset_peak();
  double g0[NW];
  memset(g0, 0, sizeof g0);
  G_b(w, g0, x, NX, comm, 1.0);
  double peak_b = (double)mpiad_tape_peak_bytes();
  hx_check_each("tape of G_bv <= R x tape of G_b (+ 256 bytes of pointers)",
                peak_bv <= NR * peak_b + 256 ? 1.0 : 0.0, 1.0, 0.0, 1.0);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
