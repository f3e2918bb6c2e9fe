// Forward mode (F_d) through MPI collectives: Allreduce SUM / PROD / MAX / MIN
// (also with MPI_IN_PLACE, PROD with zero factors, MAX/MIN ties), Reduce (SUM,
// PROD, MAX to a root that is not 0), Bcast, Allgather, Allgatherv, Gather,
// Scatter, Reduce_scatter_block, Alltoall, Gatherv, Scatterv, Reduce_scatter,
// Alltoallv (counts and displacements that differ, with gaps), Scan and Exscan.  Every function
// carries a forward and a reverse pragma; each case checks (Inputs/fwd_check.h)
//   - F_d writes exactly the primal outputs,
//   - its tangent against central differences of the primal along per-rank
//     random directions (the replicated th gets the same direction on all
//     ranks), element by element on every rank,
//   - a replicated output's tangent is the same on every rank,
//   - the dot-product test of F_d against F_b in global semantics:
//     sum_r <yb, yd_varying> + <yb, yd_replicated> (once) against
//     sum_r <dx, xb> + <dth, thb> (once), rtol 1e-12.
// At MAX/MIN ties (not differentiable: no central differences) the tangent
// must be exactly the direction of the lowest rank holding the extreme.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "fwd_check.h"

#define N 3
#define PMAX 8 /* the largest rank count the fixed buffers allow */

/* ---------------- Allreduce ---------------- */

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_sum(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]);
    yv[i] = s[i] * x[i] * (r + 1);
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_sum_inp(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double s[N];
  for (int i = 0; i < N; i++)
    s[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]);
    yv[i] = s[i] * x[i] * (r + 1);
  }
}

/* a replicated input theta next to the varying x (NetKet-like mean) */
#pragma mpiad differentiate forward wrt(x, th) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x, th) output(yv, yr) replicated(th) varying(x)
void ar_sum_th(const double *x, const double *th, double *yv, double *yr,
               MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double loc = 0.0, tot = 0.0;
  for (int i = 0; i < N; i++)
    loc += exp(-th[0] * x[i]) * th[1] + x[i] * x[i] * th[1];
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  yr[0] = tot / (N * P) + 0.5 * th[0] * th[0];
  yr[1] = tot * th[1];
  for (int i = 0; i < N; i++)
    yv[i] = x[i] * th[0] + tot * x[i];
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_prod(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double a[N], p[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(a, p, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = p[i] * p[i] + p[i];
    yv[i] = p[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_prod_inp(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double p[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(MPI_IN_PLACE, p, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = p[i] * p[i] + p[i];
    yv[i] = p[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_max(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double a[N], m[N];
  for (int i = 0; i < N; i++)
    a[i] = sin(x[i]) + x[i];
  MPI_Allreduce(a, m, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = m[i] * m[i] + m[i];
    yv[i] = m[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_max_inp(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double m[N];
  for (int i = 0; i < N; i++)
    m[i] = sin(x[i]) + x[i];
  MPI_Allreduce(MPI_IN_PLACE, m, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = m[i] * m[i] + m[i];
    yv[i] = m[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_min(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double a[N], m[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] - x[i];
  MPI_Allreduce(a, m, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = exp(m[i]);
    yv[i] = m[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_min_inp(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double m[N];
  for (int i = 0; i < N; i++)
    m[i] = x[i] * x[i] - x[i];
  MPI_Allreduce(MPI_IN_PLACE, m, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = exp(m[i]);
    yv[i] = m[i] * x[i];
  }
}

/* ties: yr[0..N) = max, yr[N..2N) = min (the raw results, replicated), plus a
 * varying use of both */
#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void ar_ties(const double *x, double *yv, double *yr, MPI_Comm comm) {
  double mx[N], mn[N];
  MPI_Allreduce(x, mx, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++)
    mn[i] = x[i];
  MPI_Allreduce(MPI_IN_PLACE, mn, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = mx[i];
    yr[N + i] = mn[i];
    yv[i] = (mx[i] + 2.0 * mn[i]) * x[i];
  }
}

/* ---------------- Reduce (root = last rank) ---------------- */

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void red_sum(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[N], s[N];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i] * (i + 1);
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, N, MPI_DOUBLE, MPI_SUM, P - 1, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i] * s[i] + s[i] * x[i] + cos(x[i]);
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void red_prod(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[N], s[N];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] + 0.5 * x[i] * x[i];
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, N, MPI_DOUBLE, MPI_PROD, P - 1, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i] * x[i] + sin(x[i]);
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void red_max(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[N], s[N];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * exp(0.3 * x[i]);
    s[i] = 0.0;
  }
  MPI_Reduce(a, s, N, MPI_DOUBLE, MPI_MAX, P - 1, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i] * s[i] + x[i];
}

/* ---------------- Bcast (root = P / 2) ---------------- */

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void bcast(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double b[N];
  for (int i = 0; i < N; i++)
    b[i] = x[i] * x[i] + 1.0;
  MPI_Bcast(b, N, MPI_DOUBLE, P / 2, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = log(b[i]) * b[i];
    yv[i] = b[i] * x[i];
  }
}

/* ---------------- Allgather(v) ---------------- */

#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void allgather(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[N], g[PMAX * N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i];
  MPI_Allgather(a, N, MPI_DOUBLE, g, N, MPI_DOUBLE, comm);
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      t += g[q * N + i] * g[q * N + i] * (q + 1);
    yr[i] = t;
    yv[i] = t * x[i];
  }
}

#define NV 4 /* rank r contributes r + 1 <= 4 values */
#pragma mpiad differentiate forward wrt(x) output(yv, yr)
#pragma mpiad differentiate reverse wrt(x) output(yv, yr) varying(x)
void allgatherv(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int counts[PMAX], displs[PMAX];
  int tot = 0;
  for (int q = 0; q < P; q++) {
    counts[q] = q + 1;
    displs[q] = tot;
    tot += q + 1;
  }
  double a[NV], g[PMAX * (PMAX + 1) / 2];
  for (int i = 0; i < r + 1; i++)
    a[i] = sin(x[i]) + x[i] * x[i];
  MPI_Allgatherv(a, r + 1, MPI_DOUBLE, g, counts, displs, MPI_DOUBLE, comm);
  double t0 = 0.0, t1 = 0.0;
  for (int k = 0; k < tot; k++) {
    t0 += g[k] * (k + 1);
    t1 += g[k] * g[k];
  }
  yr[0] = t0;
  yr[1] = t1;
  for (int i = 0; i < NV; i++)
    yv[i] = t0 * x[i] + g[i % tot];
}

/* ---------------- Gather / Scatter ---------------- */

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void gather(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double a[N], g[PMAX * N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] * x[i];
  for (int k = 0; k < PMAX * N; k++)
    g[k] = 0.0;
  MPI_Gather(a, N, MPI_DOUBLE, g, N, MPI_DOUBLE, P - 1, comm);
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      t += g[q * N + i] * g[q * N + i] * (q + 2);
    y[i] = t + x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void scatter(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double sb[PMAX * N], rb[N];
  for (int k = 0; k < P * N; k++)
    sb[k] = x[k % N] * x[(k + 1) % N] * (k + 1);
  MPI_Scatter(sb, N, MPI_DOUBLE, rb, N, MPI_DOUBLE, P / 2, comm);
  for (int i = 0; i < N; i++)
    y[i] = rb[i] * rb[i] + x[i] * rb[i];
}

/* ---------------- Reduce_scatter_block, Alltoall ---------------- */

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void red_scatter(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double sb[PMAX * N], rb[N];
  for (int k = 0; k < P * N; k++)
    sb[k] = x[k % N] * x[(k + 1) % N] + 0.1 * k * x[(k + 2) % N];
  MPI_Reduce_scatter_block(sb, rb, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++)
    y[i] = rb[i] * x[i] + rb[i] * rb[i];
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void alltoall(const double *x, double *y, MPI_Comm comm) {
  int P;
  MPI_Comm_size(comm, &P);
  double sb[PMAX * N], rb[PMAX * N];
  for (int k = 0; k < P * N; k++)
    sb[k] = x[k % N] * (k + 2) + x[(k + 1) % N] * x[k % N];
  MPI_Alltoall(sb, N, MPI_DOUBLE, rb, N, MPI_DOUBLE, comm);
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      t += rb[q * N + i] * rb[q * N + i] * (q + 1);
    y[i] = t * x[i];
  }
}

/* ---------------- Gatherv, Scatterv, Reduce_scatter, Alltoallv ----------
 * (issue 21, part 5: their tangents never ran; a forward Alltoallv that
 * received with sdispls gave 14 where central differences give 10).  Rank q
 * sends q + 1 values (at most N) in the v-forms, with displacements that
 * leave gaps, so that a swapped count or displacement moves data. */

static void vlayout(int P, int *cnt, int *dsp) {
  for (int q = 0; q < P; q++) {
    cnt[q] = q % N + 1;
    dsp[q] = q == 0 ? 1 : dsp[q - 1] + cnt[q - 1] + 1;
  }
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void gatherv(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int cnt[PMAX], dsp[PMAX];
  vlayout(P, cnt, dsp);
  double a[N], g[PMAX * (N + 1) + 1];
  for (int k = 0; k < PMAX * (N + 1) + 1; k++)
    g[k] = 0.0;
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[(i + 1) % N] + x[i];
  MPI_Gatherv(a, cnt[r], MPI_DOUBLE, g, cnt, dsp, MPI_DOUBLE, P - 1, comm);
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      for (int j = 0; j < cnt[q]; j++)
        t += g[dsp[q] + j] * g[dsp[q] + j] * (q + j + 1) * (i + 1);
    y[i] = t + x[i] * x[i];
  }
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void scatterv(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int cnt[PMAX], dsp[PMAX];
  vlayout(P, cnt, dsp);
  double sb[PMAX * (N + 1) + 1], rb[N];
  for (int k = 0; k < PMAX * (N + 1) + 1; k++)
    sb[k] = x[k % N] * (k + 1) + x[(k + 2) % N] * x[k % N];
  for (int i = 0; i < N; i++)
    rb[i] = 0.0;
  MPI_Scatterv(sb, cnt, dsp, MPI_DOUBLE, rb, cnt[r], MPI_DOUBLE, P / 2, comm);
  for (int i = 0; i < N; i++)
    y[i] = rb[i] * rb[i] + x[i] * rb[i] + x[i];
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void red_scatter_v(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int cnt[PMAX], tot = 0;
  for (int q = 0; q < P; q++) {
    cnt[q] = q % N + 1;
    tot += cnt[q];
  }
  double sb[PMAX * N], rb[N];
  for (int k = 0; k < tot; k++)
    sb[k] = x[k % N] * x[(k + 1) % N] + 0.1 * (k + r) * x[(k + 2) % N];
  for (int i = 0; i < N; i++)
    rb[i] = 0.0;
  MPI_Reduce_scatter(sb, rb, cnt, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++)
    y[i] = rb[i] * x[i] + rb[i] * rb[i];
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void alltoallv(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* rank r sends (q + r) % N + 1 values to rank q, packed from sdsp[q];
   * receives them at rdsp[q], laid out with one-element gaps */
  int scnt[PMAX], sdsp[PMAX], rcnt[PMAX], rdsp[PMAX];
  for (int q = 0; q < P; q++) {
    scnt[q] = (q + r) % N + 1;
    rcnt[q] = (r + q) % N + 1;
    sdsp[q] = q == 0 ? 0 : sdsp[q - 1] + scnt[q - 1];
    rdsp[q] = q == 0 ? 2 : rdsp[q - 1] + rcnt[q - 1] + 1;
  }
  double sb[PMAX * N], rb[PMAX * (N + 1) + 2];
  for (int k = 0; k < PMAX * N; k++)
    sb[k] = x[k % N] * (k + 2) + x[(k + 1) % N] * x[k % N];
  for (int k = 0; k < PMAX * (N + 1) + 2; k++)
    rb[k] = 0.0;
  MPI_Alltoallv(sb, scnt, sdsp, MPI_DOUBLE, rb, rcnt, rdsp, MPI_DOUBLE, comm);
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int q = 0; q < P; q++)
      for (int j = 0; j < rcnt[q]; j++)
        t += rb[rdsp[q] + j] * rb[rdsp[q] + j] * (q + 1) * (j + i + 1);
    y[i] = t * x[i];
  }
}

/* ---------------- Scan / Exscan ---------------- */

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void scan(const double *x, double *y, MPI_Comm comm) {
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + x[i];
  MPI_Scan(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++)
    y[i] = s[i] * s[i] + s[i] * x[i];
}

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void exscan(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], e[N];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i] + x[i];
    e[i] = 0.0;
  }
  MPI_Exscan(a, e, N, MPI_DOUBLE, MPI_SUM, comm);
  if (r == 0)
    for (int i = 0; i < N; i++)
      e[i] = 0.0;
  for (int i = 0; i < N; i++)
    y[i] = e[i] * x[i] + e[i] * e[i] + x[i];
}

/* ---------------- adapters ---------------- */
#define W MPI_COMM_WORLD
/* f(x, yv, yr, comm): NX inputs, NY varying outputs, then replicated ones */
#define ADAPT_VR(f, NX, NY)                                                    \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, y + (NY), W);                                                      \
  }                                                                            \
  static void D_##f(const double *x, const double *dx, const double *th,      \
                    const double *dth, double *y, double *yd) {               \
    double xd[NX];                                                             \
    (void)th; (void)dth;                                                       \
    memcpy(xd, dx, sizeof xd);                                                 \
    f##_d(x, xd, y, yd, y + (NY), yd + (NY), W);                               \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                     \
    (void)th; (void)thb;                                                       \
    f##_b(x, xb, y, yb, y + (NY), yb + (NY), W);                               \
  }
/* f(x, y, comm) */
#define ADAPT_V(f, NX)                                                         \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, W);                                                                \
  }                                                                            \
  static void D_##f(const double *x, const double *dx, const double *th,      \
                    const double *dth, double *y, double *yd) {               \
    double xd[NX];                                                             \
    (void)th; (void)dth;                                                       \
    memcpy(xd, dx, sizeof xd);                                                 \
    f##_d(x, xd, y, yd, W);                                                    \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                     \
    (void)th; (void)thb;                                                       \
    f##_b(x, xb, y, yb, W);                                                    \
  }

ADAPT_VR(ar_sum, N, N)
ADAPT_VR(ar_sum_inp, N, N)
ADAPT_VR(ar_prod, N, N)
ADAPT_VR(ar_prod_inp, N, N)
ADAPT_VR(ar_max, N, N)
ADAPT_VR(ar_max_inp, N, N)
ADAPT_VR(ar_min, N, N)
ADAPT_VR(ar_min_inp, N, N)
ADAPT_VR(ar_ties, N, N)
ADAPT_VR(bcast, N, N)
ADAPT_VR(allgather, N, N)
ADAPT_VR(allgatherv, NV, NV)
ADAPT_V(red_sum, N)
ADAPT_V(red_prod, N)
ADAPT_V(red_max, N)
ADAPT_V(gather, N)
ADAPT_V(scatter, N)
ADAPT_V(red_scatter, N)
ADAPT_V(alltoall, N)
ADAPT_V(gatherv, N)
ADAPT_V(scatterv, N)
ADAPT_V(red_scatter_v, N)
ADAPT_V(alltoallv, N)
ADAPT_V(scan, N)
ADAPT_V(exscan, N)

static void P_ar_sum_th(const double *x, const double *th, double *y) {
  ar_sum_th(x, th, y, y + N, W);
}
static void D_ar_sum_th(const double *x, const double *dx, const double *th,
                        const double *dth, double *y, double *yd) {
  double xd[N], thd[2];
  memcpy(xd, dx, sizeof xd);
  memcpy(thd, dth, sizeof thd);
  ar_sum_th_d(x, xd, th, thd, y, yd, y + N, yd + N, W);
}
static void B_ar_sum_th(const double *x, double *xb, const double *th,
                        double *thb, double *y, double *yb) {
  ar_sum_th_b(x, xb, th, thb, y, yb, y + N, yb + N, W);
}

/* ---------------- chosen points ---------------- */

/* PROD with zero factors: a = x (1 + x/4) is 0 at x = 0.  Element 0 has one
 * zero factor (rank 0); element 1 two (ranks 0 and P-1, one when P = 1);
 * element 2 none. */
static void init_prod_zero(double *x, double *th) {
  (void)th;
  if (hx_rank_g == 0)
    x[0] = 0.0;
  if (hx_rank_g == 0 || hx_rank_g == hx_size_g - 1)
    x[1] = 0.0;
}

/* ties: element 0 equal on every rank; element 1: 2.0 on ranks >= 1 and 1.0
 * on rank 0 for MAX (and, by symmetry, MIN is then rank 0's alone);
 * element 2: the MIN is shared by ranks >= 1 when the MAX is not */
static double tie_x(int q, int i) {
  if (i == 0)
    return 0.75;
  if (i == 1)
    return q >= 1 ? 2.0 : 1.0;
  return q >= 1 ? 0.5 : 1.5;
}
static double tie_dx(int q, int i) { return 0.1 * (q + 1) + 0.01 * (i + 1); }
static void init_ties(double *x, double *th) {
  (void)th;
  for (int i = 0; i < N; i++)
    x[i] = tie_x(hx_rank_g, i);
}
static void dir_ties(double *dx, double *dth) {
  (void)dth;
  for (int i = 0; i < N; i++)
    dx[i] = tie_dx(hx_rank_g, i);
}
/* tangent of the extreme: the direction of the LOWEST rank holding it */
static double tie_ext_d(int i, int want_max) {
  int best = 0;
  for (int q = 1; q < hx_size_g; q++) {
    double v = tie_x(q, i), b = tie_x(best, i);
    if (want_max ? v > b : v < b)
      best = q;
  }
  return tie_dx(best, i);
}
static void expect_ties(const double *x, const double *dx, const double *th,
                        const double *dth, double *want) {
  (void)th; (void)dth;
  for (int i = 0; i < N; i++) {
    double mx = 0, mn = 0;
    for (int q = 0; q < hx_size_g; q++) {
      double v = tie_x(q, i);
      if (q == 0 || v > mx)
        mx = v;
      if (q == 0 || v < mn)
        mn = v;
    }
    double mxd = tie_ext_d(i, 1), mnd = tie_ext_d(i, 0);
    want[N + i] = mxd;
    want[2 * N + i] = mnd;
    want[i] = (mxd + 2.0 * mnd) * x[i] + (mx + 2.0 * mn) * dx[i];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  if (hx_size_g > PMAX) {
    if (hx_rank_g == 0)
      printf("FAIL: at most %d ranks\n", PMAX);
    MPI_Finalize();
    return 1;
  }
  unsigned long long seed = 1000;
#define CASE_VR(f, NX, NY, NYR)                                                \
  {                                                                            \
    fc_case c = {#f, P_##f, D_##f, B_##f, NX, 0, NY, NYR};                     \
    fc_run(&c, seed += 10);                                                    \
  }
#define CASE_V(f) CASE_VR(f, N, N, 0)
/* PROD: the runtime computes the product itself (a product of the non-zero
 * factors and a count of zeros, zeros handled exactly), so the value may
 * differ from MPI_PROD's in the last bit */
#define CASE_PROD(f, NYR)                                                      \
  {                                                                            \
    fc_case c = {#f, P_##f, D_##f, B_##f, N, 0, N, NYR};                       \
    c.primal_rtol = 1e-15;                                                     \
    fc_run(&c, seed += 10);                                                    \
  }
  CASE_VR(ar_sum, N, N, N)
  CASE_VR(ar_sum_inp, N, N, N)
  {
    fc_case c = {"ar_sum_th (replicated th)", P_ar_sum_th, D_ar_sum_th,
                 B_ar_sum_th, N, 2, N, 2};
    fc_run(&c, seed += 10);
  }
  CASE_PROD(ar_prod, N)
  CASE_PROD(ar_prod_inp, N)
  {
    fc_case c = {"ar_prod zero factors", P_ar_prod, D_ar_prod, B_ar_prod,
                 N, 0, N, N};
    c.init = init_prod_zero;
    c.primal_rtol = 1e-15;
    fc_run(&c, seed += 10);
    c = (fc_case){"ar_prod_inp zero factors", P_ar_prod_inp, D_ar_prod_inp,
                  B_ar_prod_inp, N, 0, N, N};
    c.init = init_prod_zero;
    c.primal_rtol = 1e-15;
    fc_run(&c, seed += 10);
  }
  CASE_VR(ar_max, N, N, N)
  CASE_VR(ar_max_inp, N, N, N)
  CASE_VR(ar_min, N, N, N)
  CASE_VR(ar_min_inp, N, N, N)
  CASE_VR(ar_ties, N, N, 2 * N) /* random point: no ties */
  {
    fc_case c = {"ar_ties at ties", P_ar_ties, D_ar_ties, B_ar_ties, N, 0, N,
                 2 * N};
    c.init = init_ties;
    c.init_dir = dir_ties;
    c.no_fd = 1;
    c.expect = expect_ties;
    fc_run(&c, seed += 10);
  }
  CASE_V(red_sum)
  CASE_PROD(red_prod, 0)
  CASE_V(red_max)
  CASE_VR(bcast, N, N, N)
  CASE_VR(allgather, N, N, N)
  CASE_VR(allgatherv, NV, NV, 2)
  CASE_V(gather)
  CASE_V(scatter)
  CASE_V(red_scatter)
  CASE_V(alltoall)
  CASE_V(gatherv)
  CASE_V(scatterv)
  CASE_V(red_scatter_v)
  CASE_V(alltoallv)
  CASE_V(scan)
  CASE_V(exscan)
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
