// The adjoint of a loop that sums, run inside the loop for a seed of 1 and
// scaled in the reverse sweep (tool/lib/DeferredSeed.cpp): the reverse
// sweep reaches the loop with the sum's adjoint known only after the
// reductions, but the loop's reverse is linear in it.
//  - logi: the logistic loss of samples/fitting (a branch on m, exp and log
//    in it), the mean over all ranks' samples, and a regularisation: one
//    pass over the samples, nothing recorded;
//  - two: two loops, each with its sum, the objective their quotient: both
//    run their adjoints inside;
//  - carried: a sum whose loop also carries v from one sample to the next
//    (v = 0.5 v + ...): the reverse restores v, which the next iteration
//    reads, so the adjoint stays in the reverse sweep;
//  - persample: the gradient with respect to the data X too, one element per
//    sample: stays in the reverse sweep;
//  - layer: an inner loop over two hidden units, whose local a is computed
//    again by the reverse (not recorded) and whose adjoint a_b is zeroed in
//    the inner loop: fused;
//  - twice: t assigned twice in an iteration: it would be pushed and popped
//    at every iteration, so the adjoint stays in the reverse sweep.
// Each against central differences of the primal (the objective summed over
// ranks; w replicated, the data per rank) and forward mode by the
// dot-product test, at 1-4 ranks, with an empty tape after each adjoint;
// logi, two and layer keep nothing on the tape (its peak is 0).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double logi_b(
// GEN: double *w_b_part_u = mpiad_alloc_zeroed({{.*}}, sizeof(double), "logi_b", "w", comm);
// GEN-NOT: mpiad_push
// GEN: /* adjoint of this iteration, for local_b = 1 (the reverse sweep scales it by local_b) */
// GEN-NEXT: if (m > 0.0) {
// GEN: /* reverse sweep */
// GEN-NOT: mpiad_pop
// GEN: /* adjoint of the loop, run inside it for local_b = 1: times local_b */
// GEN-NEXT: for (int mpiad_k = 0; mpiad_k < {{.*}}; mpiad_k++) {
// GEN-NEXT: w_b_part[mpiad_k] += local_b * w_b_part_u[mpiad_k];
// GEN-LABEL: double two_b(
// GEN: adjoint of this iteration, for s1_b = 1
// GEN: adjoint of this iteration, for s2_b = 1
// GEN: /* reverse sweep */
// GEN: adjoint of the loop, run inside it for s2_b = 1: times s2_b
// GEN: adjoint of the loop, run inside it for s1_b = 1: times s1_b
// GEN-LABEL: double carried_b(
// GEN-NOT: adjoint of this iteration
// GEN: mpiad_push_f64(v);
// GEN-LABEL: double persample_b(
// GEN-NOT: adjoint of this iteration
// GEN-LABEL: double twice_b(
// GEN-NOT: adjoint of this iteration
// GEN: mpiad_push_f64(t);
// GEN: /* reverse sweep */
// GEN: t = mpiad_pop_f64();
// GEN-LABEL: double layer_b(
// GEN-NOT: mpiad_push
// GEN: adjoint of this iteration, for s_b = 1
// GEN: a_b = 0;
// GEN: /* reverse sweep */
// GEN-NOT: mpiad_pop
// GEN: adjoint of the loop, run inside it for s_b = 1: times s_b
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define NW 4

#pragma mpiad differentiate wrt(w) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w) replicated(w) varying(X, y, n)
double logi(const double *w, const double *X, const double *y, int n,
            MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double z = w[3];
    for (int j = 0; j < 3; j++)
      z += w[j] * X[i * 3 + j];
    double m = -y[i] * z;
    if (m > 0.0)
      local += m + log(1.0 + exp(-m));
    else
      local += log(1.0 + exp(m));
  }
  double count = n;
  double total = 0.0, total_count = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&count, &total_count, 1, MPI_DOUBLE, MPI_SUM, comm);
  double reg = 0.0;
  for (int j = 0; j < NW; j++)
    reg += w[j] * w[j];
  return total / total_count + 0.05 * reg;
}

#pragma mpiad differentiate wrt(w) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w) replicated(w) varying(X, y, n)
double two(const double *w, const double *X, const double *y, int n,
           MPI_Comm comm) {
  double s1 = 0.0, s2 = 0.0;
  for (int i = 0; i < n; i++) {
    double r = w[0] * X[i * 3] + w[1] - y[i];
    s1 += r * r;
  }
  for (int i = 0; i < n; i++)
    s2 += exp(w[2] * X[i * 3 + 1]) + w[3] * w[3];
  double t[2] = {s1, s2}, g[2];
  MPI_Allreduce(t, g, 2, MPI_DOUBLE, MPI_SUM, comm);
  return g[0] / g[1];
}

#pragma mpiad differentiate wrt(w) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w) replicated(w) varying(X, y, n)
double carried(const double *w, const double *X, const double *y, int n,
               MPI_Comm comm) {
  double s = 0.0, v = w[3];
  for (int i = 0; i < n; i++) {
    v = 0.5 * v * v + w[0] * X[i * 3] - y[i];
    s += v * v;
  }
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g / (1.0 + w[1] * w[1]);
}

#pragma mpiad differentiate wrt(w, X) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w, X) replicated(w) varying(X, y, n)
double persample(const double *w, const double *X, const double *y, int n,
                 MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = w[0] * X[i * 3] * X[i * 3 + 2] + w[2] - y[i];
    s += r * r;
  }
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(g + w[1] * w[1]);
}

#pragma mpiad differentiate wrt(w) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w) replicated(w) varying(X, y, n)
double twice(const double *w, const double *X, const double *y, int n,
             MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = w[0] * X[i * 3] + y[i];
    s += sin(t) * w[1];
    t = t * t * w[2];
    s += cos(t);
  }
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g * g;
}

#pragma mpiad differentiate wrt(w) replicated(w) varying(X, y, n)
#pragma mpiad differentiate forward wrt(w) replicated(w) varying(X, y, n)
double layer(const double *w, const double *X, const double *y, int n,
             MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double out = w[3];
    for (int k = 0; k < 2; k++) {
      double a = w[k] * X[i * 3 + k] + w[2] * X[i * 3 + 2];
      out += a * a * w[1 - k];
    }
    double e = out - y[i];
    s += e * e;
  }
  double g = 0.0;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(1.0 + g);
}

#define NL 5

typedef struct {
  int which;
  const double *X, *y;
} ctx_t;

static double J(const ctx_t *c, const double *w, const double *X) {
  MPI_Comm comm = MPI_COMM_WORLD;
  switch (c->which) {
  case 0:
    return logi(w, c->X, c->y, NL, comm);
  case 1:
    return two(w, c->X, c->y, NL, comm);
  case 2:
    return carried(w, c->X, c->y, NL, comm);
  case 3:
    return persample(w, X, c->y, NL, comm);
  case 5:
    return layer(w, c->X, c->y, NL, comm);
  default:
    return twice(w, c->X, c->y, NL, comm);
  }
}

/* The adjoint with seed 1 (w_b, and X_b for persample), or the tangent. */
static double run(const ctx_t *c, const double *w, double *wb, double *xb,
                  double *wd, double *xd, double *jd, int tangent) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const double *X = c->X, *y = c->y;
  switch (c->which) {
  case 0:
    return tangent ? logi_d(w, wd, X, y, NL, comm, jd)
                   : logi_b(w, wb, X, y, NL, comm, 1.0);
  case 1:
    return tangent ? two_d(w, wd, X, y, NL, comm, jd)
                   : two_b(w, wb, X, y, NL, comm, 1.0);
  case 2:
    return tangent ? carried_d(w, wd, X, y, NL, comm, jd)
                   : carried_b(w, wb, X, y, NL, comm, 1.0);
  case 3:
    return tangent ? persample_d(w, wd, X, xd, y, NL, comm, jd)
                   : persample_b(w, wb, X, xb, y, NL, comm, 1.0);
  case 5:
    return tangent ? layer_d(w, wd, X, y, NL, comm, jd)
                   : layer_b(w, wb, X, y, NL, comm, 1.0);
  default:
    return tangent ? twice_d(w, wd, X, y, NL, comm, jd)
                   : twice_b(w, wb, X, y, NL, comm, 1.0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  const char *names[] = {"logi",  "two",  "carried",
                         "persample", "twice", "layer"};
  for (int which = 0; which < 6; which++) {
    double w[NW], dw[NW], X[NL * 3], dX[NL * 3], y[NL];
    hx_rand(w, NW, 10 + which, HX_REP, -0.6, 0.6);
    hx_rand(dw, NW, 20 + which, HX_REP, -1.0, 1.0);
    hx_rand(X, NL * 3, 30 + which, hx_rank_g, -1.0, 1.0);
    hx_rand(dX, NL * 3, 40 + which, hx_rank_g, -1.0, 1.0);
    hx_rand(y, NL, 50 + which, hx_rank_g, -1.0, 1.0);
    if (which == 0)
      for (int i = 0; i < NL; i++) /* labels +-1, both branches taken */
        y[i] = y[i] > 0.0 ? 1.0 : -1.0;
    ctx_t c = {which, X, y};
    int withX = which == 3;
    double wb[NW] = {0}, xb[NL * 3] = {0};
    mpiad_tape_reset_peak();
    double v = run(&c, w, wb, xb, NULL, NULL, NULL, 0);
    double peak = (double)mpiad_tape_peak_bytes(), mx = 0.0;
    MPI_Allreduce(&peak, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    char label[128];
    snprintf(label, sizeof label, "%s: value", names[which]);
    hx_check(label, v, J(&c, w, X), 1e-14, 1e-300);
    hx_tape(names[which]);
#ifndef MPIAD_VERIFY
    int check_peak = which <= 1 || which == 5;
#else
    int check_peak = 0; /* --verify keeps each adjoint at its statement */
#endif
    if (check_peak) {
      snprintf(label, sizeof label, "%s: tape peak", names[which]);
      hx_check(label, mx, 0.0, 0.0, 0.0);
    }
    double h = 1e-6, wp[NW], wm[NW], Xp[NL * 3], Xm[NL * 3];
    for (int k = 0; k < NW; k++) {
      wp[k] = w[k] + h * dw[k];
      wm[k] = w[k] - h * dw[k];
    }
    for (int k = 0; k < NL * 3; k++) {
      Xp[k] = X[k] + (withX ? h * dX[k] : 0.0);
      Xm[k] = X[k] - (withX ? h * dX[k] : 0.0);
    }
    double fd = (J(&c, wp, Xp) - J(&c, wm, Xm)) / (2 * h);
    /* w is replicated: its gradient is the same on every rank; X's is per
       rank, its directional part summed over the ranks */
    double adw = 0.0, adx = 0.0;
    for (int k = 0; k < NW; k++)
      adw += dw[k] * wb[k];
    for (int k = 0; withX && k < NL * 3; k++)
      adx += dX[k] * xb[k];
    double ad = adw + hx_sum(adx);
    snprintf(label, sizeof label, "%s: adjoint vs central differences",
             names[which]);
    hx_check(label, ad, fd, 1e-7, 1e-10);
    double wd[NW], xd[NL * 3], jd = 0.0;
    memcpy(wd, dw, sizeof wd);
    for (int k = 0; k < NL * 3; k++)
      xd[k] = withX ? dX[k] : 0.0;
    run(&c, w, NULL, NULL, wd, xd, &jd, 1);
    snprintf(label, sizeof label, "%s: dot-product test (forward vs reverse)",
             names[which]);
    hx_check(label, jd, ad, 1e-12, 1e-300);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
