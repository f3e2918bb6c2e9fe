// Non-blocking communication, reverse and forward mode: a ring with
// Isend/Irecv/Waitall; two messages with the SAME tag between the same ranks
// outstanding at once and completed in different orders on the two sides
// (receiver: Wait in reverse order, or Waitany; sender: Waitall), which
// matching adjoint messages by tag alone gets wrong; a gather at rank 0 with
// Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) completed by Waitany, the data placed by
// the status's source and scaled by its tag (both read by the program), and
// replies by Isend; requests started in one loop iteration and completed in
// the next; Iallreduce (also in place), Ibcast and Iallgather overlapped and
// completed by one Waitall; Issend, MPI_Test with an unused flag, Waitsome
// in a loop, MPI_Request_free on a send; a blocking Send matched by an Irecv.
// An open chain whose ends talk to MPI_PROC_NULL, with a freed send, and two
// block-scoped statuses of the same name read by the program.
// The root of an Ibcast reading its buffer before the wait. Float buffers (a
// ring and an Iallreduce). Finally every adjoint runs once more, and the request bookkeeping must not
// allocate (steady state).
// Each case checks the adjoint against central differences and the tangent
// (Inputs/fwd_check.h: primal, tangent against differences, and the
// tangent/adjoint dot-product test) at 1-4 ranks.
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
#define PMAX 8
#define STEPS 4

#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void ring_nb(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[N], b[N];
  MPI_Request req[2];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + sin(x[i]);
  MPI_Irecv(b, N, MPI_DOUBLE, left, 1, comm, &req[0]);
  MPI_Isend(a, N, MPI_DOUBLE, right, 1, comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = b[i] * a[i] + b[i] * b[i];
}

/* Two messages, same tag, same pair: the receiver completes them in the
 * reverse order of posting. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void same_tag(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a1[N], a2[N], b1[N], b2[N];
  MPI_Request rr[2], sr[2];
  for (int i = 0; i < N; i++) {
    a1[i] = 2.0 * x[i];
    a2[i] = x[i] * x[i];
  }
  MPI_Irecv(b1, N, MPI_DOUBLE, left, 5, comm, &rr[0]);
  MPI_Irecv(b2, N, MPI_DOUBLE, left, 5, comm, &rr[1]);
  MPI_Isend(a1, N, MPI_DOUBLE, right, 5, comm, &sr[0]);
  MPI_Isend(a2, N, MPI_DOUBLE, right, 5, comm, &sr[1]);
  MPI_Wait(&rr[1], MPI_STATUS_IGNORE);
  MPI_Wait(&rr[0], MPI_STATUS_IGNORE);
  MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = 3.0 * b1[i] + b2[i] * b2[i] + 0.5 * x[i] * b1[i];
}

/* The same with Waitany on the receives (any completion order). */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y)
void same_tag_any(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[2 * N], b[2 * N];
  MPI_Request rr[2], sr[2];
  for (int i = 0; i < N; i++) {
    a[i] = sin(x[i]);
    a[N + i] = x[i] * x[i] * x[i];
  }
  MPI_Irecv(b, N, MPI_DOUBLE, left, 9, comm, &rr[0]);
  MPI_Irecv(&b[N], N, MPI_DOUBLE, left, 9, comm, &rr[1]);
  MPI_Isend(a, N, MPI_DOUBLE, right, 9, comm, &sr[0]);
  MPI_Isend(&a[N], N, MPI_DOUBLE, right, 9, comm, &sr[1]);
  for (int k = 0; k < 2; k++) {
    int idx;
    MPI_Waitany(2, rr, &idx, MPI_STATUS_IGNORE);
  }
  MPI_Wait(&sr[1], MPI_STATUS_IGNORE);
  MPI_Wait(&sr[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = b[i] * b[N + i] + 2.0 * b[N + i];
}

/* Gather at rank 0 with wildcards; the program reads the status. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void wild_gather(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  MPI_Barrier(comm);
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 1.0;
  if (r == 0) {
    double g[PMAX * N], slot[PMAX * N], back[PMAX * N];
    MPI_Request rq[PMAX], sq[PMAX];
    for (int q = 1; q < P; q++)
      MPI_Irecv(&g[q * N], N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                &rq[q - 1]);
    for (int k = 1; k < P; k++) {
      int idx;
      MPI_Status st;
      MPI_Waitany(P - 1, rq, &idx, &st);
      int src = st.MPI_SOURCE;
      int tag = st.MPI_TAG;
      for (int i = 0; i < N; i++)
        slot[src * N + i] = g[(idx + 1) * N + i] * (double)(tag - 90);
    }
    for (int q = 1; q < P; q++) {
      for (int i = 0; i < N; i++)
        back[q * N + i] = slot[q * N + i] * a[i];
      MPI_Isend(&back[q * N], N, MPI_DOUBLE, q, 7, comm, &sq[q - 1]);
    }
    MPI_Waitall(P - 1, sq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++) {
      double t = a[i];
      for (int q = 1; q < P; q++)
        t += slot[q * N + i] * (q + 1);
      y[i] = t;
    }
  } else {
    double b[N];
    MPI_Request s1, r1;
    MPI_Isend(a, N, MPI_DOUBLE, 0, 90 + r, comm, &s1);
    MPI_Irecv(b, N, MPI_DOUBLE, 0, 7, comm, &r1);
    MPI_Wait(&s1, MPI_STATUS_IGNORE);
    MPI_Wait(&r1, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
      y[i] = b[i] * x[i];
  }
}

/* Requests started in iteration k are completed in iteration k+1. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void cross_iter(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double sbuf[STEPS * N], rbuf[STEPS * N];
  MPI_Request rq = MPI_REQUEST_NULL, sq = MPI_REQUEST_NULL;
  for (int k = 0; k < STEPS; k++) {
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++) {
      if (k == 0)
        sbuf[i] = x[i];
      else
        sbuf[k * N + i] = 0.5 * rbuf[(k - 1) * N + i] * x[i] + x[i];
    }
    MPI_Irecv(&rbuf[k * N], N, MPI_DOUBLE, left, 3, comm, &rq);
    MPI_Isend(&sbuf[k * N], N, MPI_DOUBLE, right, 3, comm, &sq);
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Wait(&sq, MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = rbuf[(STEPS - 1) * N + i] + rbuf[i] * x[i];
}

/* Non-blocking collectives overlapped, completed by one Waitall. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void colls(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  double a[N], s[N], t[N], c[N], g[PMAX];
  MPI_Request q[4];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i];
    t[i] = sin(x[i]);
    c[i] = r == 0 ? 2.0 * x[i] : 0.0;
  }
  MPI_Iallreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm, &q[0]);
  MPI_Ibcast(c, N, MPI_DOUBLE, 0, comm, &q[1]);
  MPI_Iallgather(&a[1], 1, MPI_DOUBLE, g, 1, MPI_DOUBLE, comm, &q[2]);
  MPI_Iallreduce(MPI_IN_PLACE, t, N, MPI_DOUBLE, MPI_SUM, comm, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++) {
    double u = s[i] * x[i] + c[i] * a[i] + t[i] * t[i];
    for (int p = 0; p < P; p++)
      u += g[p] * (p + 1) * x[i];
    y[i] = u;
  }
}

/* Issend, MPI_Test with an unused flag, Waitsome in a loop, Request_free on
 * a send whose completion the reply implies, and a blocking Send matched by
 * an Irecv. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void misc(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  double a[N], b[N], c[N], d[N], e[N], f[N];
  MPI_Request q[2], fr, er;
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i];
    c[i] = cos(x[i]);
  }
  MPI_Irecv(b, N, MPI_DOUBLE, left, 11, comm, &q[0]);
  MPI_Issend(a, N, MPI_DOUBLE, right, 11, comm, &q[1]);
  int flag;
  MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
  /* Until no request is left (the test may have completed one). */
  int out = 0;
  while (out != MPI_UNDEFINED) {
    int which[2];
    MPI_Waitsome(2, q, &out, which, MPI_STATUSES_IGNORE);
  }
  /* The reply to c (in e) proves that c was received: free its request. */
  MPI_Irecv(d, N, MPI_DOUBLE, left, 12, comm, &q[0]);
  MPI_Isend(c, N, MPI_DOUBLE, right, 12, comm, &fr);
  MPI_Request_free(&fr);
  MPI_Irecv(e, N, MPI_DOUBLE, right, 13, comm, &er);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    f[i] = d[i] * b[i];
  MPI_Send(f, N, MPI_DOUBLE, left, 13, comm);
  MPI_Wait(&er, MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = e[i] + b[i] * a[i];
}

/* An open chain: the ends talk to MPI_PROC_NULL (Open MPI hands out one
 * shared completed handle for such requests and for sends done at once, so
 * requests are told apart by their variables); a freed send among them; and
 * two block-scoped statuses of the same name, read by the program. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void null_ends(const double *x, double *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = r + 1 < P ? r + 1 : MPI_PROC_NULL;
  int left = r > 0 ? r - 1 : MPI_PROC_NULL;
  double a[N], b[N], c[N], d[N];
  MPI_Request q[3];
  for (int i = 0; i < N; i++) {
    a[i] = x[i] * x[i];
    b[i] = 0.0;
    c[i] = 2.0 * x[i];
    d[i] = 0.0;
  }
  MPI_Irecv(b, N, MPI_DOUBLE, left, 21, comm, &q[0]);
  MPI_Isend(a, N, MPI_DOUBLE, right, 21, comm, &q[1]);
  MPI_Isend(c, N, MPI_DOUBLE, left, 22, comm, &q[2]);
  MPI_Request_free(&q[2]);
  {
    MPI_Status st;
    MPI_Wait(&q[0], &st);
    if (st.MPI_SOURCE != MPI_PROC_NULL)
      for (int i = 0; i < N; i++)
        b[i] = b[i] * (double)(st.MPI_TAG - 20);
  }
  {
    MPI_Status st;
    MPI_Recv(d, N, MPI_DOUBLE, right, 22, comm, &st);
    if (st.MPI_SOURCE != MPI_PROC_NULL)
      for (int i = 0; i < N; i++)
        d[i] = d[i] * (double)(st.MPI_TAG - 19);
  }
  MPI_Wait(&q[1], MPI_STATUS_IGNORE);
  MPI_Barrier(comm); /* the freed send has been received */
  for (int i = 0; i < N; i++)
    y[i] = b[i] * x[i] + d[i] + a[i];
}

/* The root of an Ibcast reads its buffer while the broadcast is under way
 * (MPI allows reading a send buffer): the reverse of that read adds to the
 * buffer's adjoint while the adjoint reduction runs. */
#pragma mpiad differentiate forward wrt(x) output(y)
#pragma mpiad differentiate reverse wrt(x) output(y) varying(x)
void bcast_root_reads(const double *x, double *y, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double c[N], w[N];
  MPI_Request q;
  for (int i = 0; i < N; i++) {
    c[i] = r == 0 ? x[i] * x[i] : 0.0;
    w[i] = 0.0;
  }
  MPI_Ibcast(c, N, MPI_DOUBLE, 0, comm, &q);
  if (r == 0)
    for (int i = 0; i < N; i++)
      w[i] = c[i] * c[i];
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = c[i] * x[i] + w[i];
}

/* Single precision: a ring and an Iallreduce on float buffers (reverse mode;
 * central differences of the float primal, with float tolerances). */
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void ring_f(const float *x, float *y, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int right = (r + 1) % P, left = (r + P - 1) % P;
  float a[N], b[N], s[N];
  MPI_Request req[3];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5f * x[i];
  MPI_Irecv(b, N, MPI_FLOAT, left, 1, comm, &req[0]);
  MPI_Isend(a, N, MPI_FLOAT, right, 1, comm, &req[1]);
  MPI_Iallreduce(a, s, N, MPI_FLOAT, MPI_SUM, comm, &req[2]);
  MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; i++)
    y[i] = b[i] * a[i] + s[i] * x[i];
}

/* ---------------- adapters ---------------- */
#define W MPI_COMM_WORLD
#define ADAPT_V(f)                                                             \
  static void P_##f(const double *x, const double *th, double *y) {           \
    (void)th;                                                                  \
    f(x, y, W);                                                                \
  }                                                                            \
  static void D_##f(const double *x, const double *dx, const double *th,      \
                    const double *dth, double *y, double *yd) {               \
    double xd[N];                                                              \
    (void)th;                                                                  \
    (void)dth;                                                                 \
    memcpy(xd, dx, sizeof xd);                                                 \
    f##_d(x, xd, y, yd, W);                                                    \
  }                                                                            \
  static void B_##f(const double *x, double *xb, const double *th,            \
                    double *thb, double *y, double *yb) {                     \
    (void)th;                                                                  \
    (void)thb;                                                                 \
    f##_b(x, xb, y, yb, W);                                                    \
  }
ADAPT_V(ring_nb)
ADAPT_V(same_tag)
ADAPT_V(same_tag_any)
ADAPT_V(wild_gather)
ADAPT_V(cross_iter)
ADAPT_V(colls)
ADAPT_V(misc)
ADAPT_V(null_ends)
ADAPT_V(bcast_root_reads)
static void P_ring_f(const double *x, const double *th, double *y) {
  float xf[N], yf[N];
  (void)th;
  hx_tof(xf, x, N);
  ring_f(xf, yf, W);
  hx_tod(y, yf, N);
}
static void B_ring_f(const double *x, double *xb, const double *th,
                     double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[N], ybf[N];
  (void)th;
  (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, N);
  ring_f_b(xf, xbf, yf, ybf, W);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, N);
  hx_tod(yb, ybf, N);
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
  unsigned long long seed = 4000;
#define CASE(f)                                                                \
  {                                                                            \
    hx_case h = {#f, P_##f, B_##f, N, 0, N, 0};                                \
    hx_case_run(&h, seed += 10);                                               \
    fc_case c = {#f, P_##f, D_##f, B_##f, N, 0, N, 0};                         \
    fc_run(&c, seed += 10);                                                    \
  }
  for (int rep = 0; rep < 2; rep++) {
    CASE(ring_nb)
    CASE(same_tag)
    CASE(same_tag_any)
    CASE(wild_gather)
    CASE(cross_iter)
    CASE(colls)
    CASE(misc)
    CASE(null_ends)
    CASE(bcast_root_reads)
    {
      hx_case h = {"ring_f", P_ring_f, B_ring_f, N, 0, N, 0};
      h.h = 1e-2;
      h.fd_rtol = 1e-3;
      h.fd_atol = 1e-4;
      h.primal_rtol = 1e-6;
      hx_case_run(&h, seed += 10);
    }
  }
  /* Steady state: running every adjoint again allocates nothing in the
   * request bookkeeping. */
  {
    double x[N] = {0.7, 1.1, 1.3}, xb[N], y[N], yb[N];
    hx_adjoint_fn all[] = {B_ring_nb, B_same_tag, B_same_tag_any,
                           B_wild_gather, B_cross_iter, B_colls, B_misc,
                           B_null_ends, B_bcast_root_reads};
    size_t before = mpiad_requests_allocations();
    for (int k = 0; k < 9; k++) {
      for (int i = 0; i < N; i++)
        xb[i] = 0.0, yb[i] = 1.0;
      all[k](x, xb, NULL, NULL, y, yb);
    }
    hx_check("request bookkeeping allocations in a repeated run",
             (double)(mpiad_requests_allocations() - before), 0.0, 0.0, 0.0);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
