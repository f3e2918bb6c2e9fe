/*
 * adjoint_comm_p2p.c - unit test of the adjoints of point-to-point MPI calls
 * (adjoint_comm.c): Send/Ssend + Recv on a ring, Recv with MPI_ANY_SOURCE /
 * MPI_ANY_TAG (the adjoint goes back to the actual sender, with the actual
 * tag and count), Sendrecv (ring, any source, chain with MPI_PROC_NULL ends
 * and short messages), Sendrecv_replace (ring: one MPI_Sendrecv_replace;
 * chain with short messages), NULL shadows on rank 0 (no deadlock), for
 * MPI_DOUBLE and MPI_FLOAT, with the adjoint identity
 * <y_b, A x> = <A^T y_b, x> summed over ranks and the tape back to empty.
 */
#include "adjoint_comm_common.h"

static int send_calls, recv_calls, sendrecv_calls, replace_calls;

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm m) {
  send_calls++;
  return PMPI_Send(b, c, t, d, tag, m);
}
int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm m,
             MPI_Status *st) {
  recv_calls++;
  return PMPI_Recv(b, c, t, s, tag, m, st);
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int stag,
                 void *rb, int rc, MPI_Datatype rt, int s, int rtag, MPI_Comm m,
                 MPI_Status *status) {
  sendrecv_calls++;
  return PMPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, m, status);
}
int MPI_Sendrecv_replace(void *b, int c, MPI_Datatype t, int d, int stag, int s,
                         int rtag, MPI_Comm m, MPI_Status *status) {
  replace_calls++;
  return PMPI_Sendrecv_replace(b, c, t, d, stag, s, rtag, m, status);
}

#define N 4
#define NBIG 8

static int right_of(int r) { return (r + 1) % rt_size; }
static int left_of(int r) { return (r - 1 + rt_size) % rt_size; }

/* Local terms of the identity for one send buffer (x, sb0 -> sb) and one
 * receive buffer (r0 before, r after, yb seed, rb after). */
typedef struct {
  double lhs, rhs, scale;
} terms;

static void add_send(terms *t, const ty_t *T, const void *sb, const void *sb0,
                     const void *x, size_t n) {
  t->rhs += tdiffdot(T, sb, sb0, x, n, &t->scale);
}

static void add_recv(terms *t, const ty_t *T, const void *yb, const void *r,
                     const void *rb, const void *r0, size_t n) {
  t->lhs += tdot(T, yb, r, n);
  t->scale += tadot(T, yb, r, n);
  t->rhs += tdot(T, rb, r0, n);
  t->scale += tadot(T, rb, r0, n);
}

/* Random x (send), r (receive buffer), yb, sb0 of n elements each; all zero
 * on a rank without derivatives (nulls). */
typedef struct {
  void *x, *r, *r0, *yb, *sb0, *sb, *rb;
} bufs;

static void bufs_make(bufs *b, const ty_t *T, size_t n, unsigned long long id,
                      int zero) {
  rseed(id * 100 + (unsigned long long)rt_rank);
  b->x = talloc(T, n);
  b->r = talloc(T, n);
  b->yb = talloc(T, n);
  b->sb0 = talloc(T, n);
  if (!zero) {
    tfill(T, b->x, n);
    tfill(T, b->r, n);
    tfill(T, b->yb, n);
  }
  tfill(T, b->sb0, n);
  b->r0 = tdup(T, b->r, n);
  b->sb = tdup(T, b->sb0, n);
  b->rb = tdup(T, b->yb, n);
}

static void bufs_free(bufs *b) {
  free(b->x);
  free(b->r);
  free(b->r0);
  free(b->yb);
  free(b->sb0);
  free(b->sb);
  free(b->rb);
}

static void check_tape(const char *label) {
  RT_CHECK(mpiad_tape_bytes() == 0, "%s: tape holds %zu bytes", label,
           mpiad_tape_bytes());
}

/* Send (or Ssend) to the right, Recv from the left; even ranks send first. */
static void test_ring_send_recv(const ty_t *T, int ssend, int nulls) {
  char label[96];
  snprintf(label, sizeof label, "ring %s %s nulls=%d", ssend ? "ssend" : "send",
           T->name, nulls);
  int nh = nulls && rt_rank == 0;
  bufs b;
  bufs_make(&b, T, N, 1 + ssend, nh);
  int R = right_of(rt_rank), L = left_of(rt_rank), even = rt_rank % 2 == 0;
  for (int step = 0; step < 2; ++step) {
    if ((step == 0) == even) {
      if (ssend && rt_size > 1)
        RT_OK(mpiad_ssend_fwd(b.x, N, T->t, R, 7, MPI_COMM_WORLD), label);
      else
        RT_OK(mpiad_send_fwd(b.x, N, T->t, R, 7, MPI_COMM_WORLD), label);
    } else {
      RT_OK(
          mpiad_recv_fwd(b.r, N, T->t, L, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          label);
    }
  }
  int s0 = send_calls, r0 = recv_calls;
  for (int step = 1; step >= 0; --step) {
    if ((step == 0) == even)
      RT_OK(mpiad_send_rev(nh ? NULL : b.sb, N, T->t, R, 7, MPI_COMM_WORLD),
            label);
    else
      RT_OK(mpiad_recv_rev(nh ? NULL : b.rb, N, T->t, MPI_COMM_WORLD), label);
  }
  RT_CHECK(send_calls - s0 == 1 && recv_calls - r0 == 1,
           "%s: rev made %d sends, %d receives", label, send_calls - s0,
           recv_calls - r0);
  terms t = {0, 0, 0};
  if (!nh) {
    add_send(&t, T, b.sb, b.sb0, b.x, N);
    add_recv(&t, T, b.yb, b.r, b.rb, b.r0, N);
    RT_CHECK(tallzero(T, b.rb, N), "%s: recv_b not zeroed", label);
  }
  check_ident(label, t.lhs, t.rhs, t.scale, T->tol);
  check_tape(label);
  bufs_free(&b);
}

/* Rank 0 receives one message from every other rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG; rank q sends N - q % 2 elements with tag 100 + q.  The
 * adjoint of receive i is seeded with 10 * source + k + 1, so each sender
 * can check that it got the adjoint of its own message. */
static void test_any_source(const ty_t *T) {
  char label[64];
  snprintf(label, sizeof label, "any_source %s", T->name);
  const int P = rt_size;
  if (P < 2)
    return;
  if (rt_rank == 0) {
    void *buf = talloc(T, (size_t)(P - 1) * N);
    void *rb = talloc(T, (size_t)(P - 1) * N);
    int srcs[64], cnts[64];
    for (int i = 0; i < P - 1; ++i) {
      MPI_Status st;
      RT_OK(mpiad_recv_fwd((char *)buf + (size_t)i * N * T->esz, N, T->t,
                           MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
            label);
      srcs[i] = st.MPI_SOURCE;
      PMPI_Get_count(&st, T->t, &cnts[i]);
      RT_CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE && cnts[i] == N - srcs[i] % 2,
               "%s: status source %d tag %d count %d", label, st.MPI_SOURCE,
               st.MPI_TAG, cnts[i]);
    }
    for (int i = 0; i < P - 1; ++i)
      for (int k = 0; k < N; ++k)
        sv(T, rb, (size_t)i * N + k, 10.0 * srcs[i] + k + 1);
    for (int i = P - 2; i >= 0; --i)
      RT_OK(mpiad_recv_rev((char *)rb + (size_t)i * N * T->esz, N, T->t,
                           MPI_COMM_WORLD),
            label);
    /* received elements zeroed; the ones past a short message kept */
    for (int i = 0; i < P - 1; ++i)
      for (int k = 0; k < N; ++k) {
        double want = k < cnts[i] ? 0.0 : 10.0 * srcs[i] + k + 1;
        RT_CHECK(gv(T, rb, (size_t)i * N + k) == want, "%s: rb[%d][%d] %g",
                 label, i, k, gv(T, rb, (size_t)i * N + k));
      }
    free(buf);
    free(rb);
  } else {
    int n = N - rt_rank % 2;
    void *x = talloc(T, N), *sb = talloc(T, N);
    tfill(T, x, N);
    RT_OK(mpiad_send_fwd(x, n, T->t, 0, 100 + rt_rank, MPI_COMM_WORLD), label);
    RT_OK(mpiad_send_rev(sb, n, T->t, 0, 100 + rt_rank, MPI_COMM_WORLD), label);
    for (int k = 0; k < N; ++k) {
      double want = k < n ? 10.0 * rt_rank + k + 1 : 0.0;
      RT_CHECK(gv(T, sb, k) == want, "%s: rank %d got sb[%d] = %g, want %g",
               label, rt_rank, k, gv(T, sb, k), want);
    }
    free(x);
    free(sb);
  }
  check_tape(label);
}

/* Sendrecv on a ring (recv from the left, or from MPI_ANY_SOURCE with
 * MPI_ANY_TAG). */
static void test_sendrecv_ring(const ty_t *T, int any, int nulls) {
  char label[96];
  snprintf(label, sizeof label, "sendrecv ring %s any=%d nulls=%d", T->name,
           any, nulls);
  int nh = nulls && rt_rank == 0;
  bufs b;
  bufs_make(&b, T, N, 10 + any, nh);
  MPI_Status st;
  RT_OK(mpiad_sendrecv_fwd(b.x, N, T->t, right_of(rt_rank), 5, b.r, N, T->t,
                           any ? MPI_ANY_SOURCE : left_of(rt_rank),
                           any ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &st),
        label);
  RT_CHECK(st.MPI_SOURCE == left_of(rt_rank) && st.MPI_TAG == 5,
           "%s: status %d %d", label, st.MPI_SOURCE, st.MPI_TAG);
  /* Adjoint messages travel on comm with the primal tags: a peer already in
   * its reverse sweep could otherwise send one that this rank's wildcard
   * forward receive matches.  Separate the sweeps when wildcards are used. */
  if (any)
    PMPI_Barrier(MPI_COMM_WORLD);
  int c0 = sendrecv_calls;
  RT_OK(mpiad_sendrecv_rev(nh ? NULL : b.sb, N, T->t, right_of(rt_rank), 5,
                           nh ? NULL : b.rb, N, T->t, any ? MPI_ANY_TAG : 5,
                           MPI_COMM_WORLD),
        label);
  RT_CHECK(sendrecv_calls - c0 == 1, "%s: %d MPI_Sendrecv calls", label,
           sendrecv_calls - c0);
  terms t = {0, 0, 0};
  if (!nh) {
    add_send(&t, T, b.sb, b.sb0, b.x, N);
    add_recv(&t, T, b.yb, b.r, b.rb, b.r0, N);
    RT_CHECK(tallzero(T, b.rb, N), "%s: recv_b not zeroed", label);
  }
  check_ident(label, t.lhs, t.rhs, t.scale, T->tol);
  check_tape(label);
  bufs_free(&b);
}

/* Sendrecv on a chain with MPI_PROC_NULL ends: rank r sends 2 + r elements
 * to r + 1 and receives at most NBIG from r - 1 (a short message). */
static void test_sendrecv_chain(const ty_t *T) {
  char label[64];
  snprintf(label, sizeof label, "sendrecv chain %s", T->name);
  int r = rt_rank;
  int dest = r + 1 < rt_size ? r + 1 : MPI_PROC_NULL;
  int src = r > 0 ? r - 1 : MPI_PROC_NULL;
  int ns = 2 + r;
  bufs b;
  bufs_make(&b, T, NBIG, 20, 0);
  RT_OK(mpiad_sendrecv_fwd(b.x, ns, T->t, dest, 3, b.r, NBIG, T->t, src,
                           MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        label);
  PMPI_Barrier(MPI_COMM_WORLD); /* wildcard tag: see test_sendrecv_ring */
  RT_OK(mpiad_sendrecv_rev(b.sb, ns, T->t, dest, 3, b.rb, NBIG, T->t,
                           MPI_ANY_TAG, MPI_COMM_WORLD),
        label);
  terms t = {0, 0, 0};
  add_send(&t, T, b.sb, b.sb0, b.x, (size_t)ns);
  add_recv(&t, T, b.yb, b.r, b.rb, b.r0, NBIG);
  check_ident(label, t.lhs, t.rhs, t.scale, T->tol);
  /* only the received elements have a zeroed adjoint */
  int got = r > 0 ? 2 + (r - 1) : 0, bad = 0;
  for (int k = 0; k < NBIG; ++k)
    bad += gv(T, b.rb, k) != (k < got ? 0.0 : gv(T, b.yb, k));
  RT_CHECK(bad == 0, "%s: %d wrong recv_b entries", label, bad);
  if (dest == MPI_PROC_NULL)
    RT_CHECK(memcmp(b.sb, b.sb0, NBIG * T->esz) == 0,
             "%s: send_b changed by a send to MPI_PROC_NULL", label);
  check_tape(label);
  bufs_free(&b);
}

/* Sendrecv_replace on a ring (one MPI_Sendrecv_replace in rev), and on a
 * chain where rank r uses count 2 + r (short messages, MPI_PROC_NULL ends). */
static void test_replace(const ty_t *T, int chain, int nulls) {
  char label[96];
  snprintf(label, sizeof label, "sendrecv_replace %s %s nulls=%d",
           chain ? "chain" : "ring", T->name, nulls);
  int r = rt_rank, nh = nulls && r == 0;
  int dest = chain ? (r + 1 < rt_size ? r + 1 : MPI_PROC_NULL) : right_of(r);
  int src = chain ? (r > 0 ? r - 1 : MPI_PROC_NULL) : left_of(r);
  int count = chain ? 2 + r : N;
  bufs b;
  bufs_make(&b, T, NBIG, 30 + chain, nh);
  /* buffer b.r holds the input and, after the call, the output */
  RT_OK(mpiad_sendrecv_replace_fwd(b.r, count, T->t, dest, 9, src,
                                   chain ? 9 : MPI_ANY_TAG, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE),
        label);
  if (!chain)
    PMPI_Barrier(MPI_COMM_WORLD); /* wildcard tag: see test_sendrecv_ring */
  int c0 = replace_calls, c1 = sendrecv_calls;
  RT_OK(mpiad_sendrecv_replace_rev(nh ? NULL : b.rb, count, T->t, dest, 9,
                                   MPI_ANY_TAG, MPI_COMM_WORLD),
        label);
  RT_CHECK(replace_calls - c0 + sendrecv_calls - c1 == 1, "%s: %d + %d calls",
           label, replace_calls - c0, sendrecv_calls - c1);
  if (!chain && !nh)
    RT_CHECK(replace_calls - c0 == 1, "%s: no MPI_Sendrecv_replace", label);
  terms t = {0, 0, 0};
  if (!nh)
    add_recv(&t, T, b.yb, b.r, b.rb, b.r0, (size_t)count);
  check_ident(label, t.lhs, t.rhs, t.scale, T->tol);
  check_tape(label);
  bufs_free(&b);
}

static void test_bad_args(void) {
  int v = 0;
  RT_CHECK(mpiad_send_rev(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) ==
               MPIAD_ERR_ARG,
           "MPI_INT accepted");
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  ty_init();
  for (int ti = 0; ti < 2; ++ti) {
    const ty_t *T = &TY[ti];
    for (int nulls = 0; nulls <= 1; ++nulls) {
      test_ring_send_recv(T, 0, nulls);
      test_ring_send_recv(T, 1, nulls);
      test_sendrecv_ring(T, 0, nulls);
      test_sendrecv_ring(T, 1, nulls);
      test_replace(T, 0, nulls);
      test_replace(T, 1, nulls);
    }
    test_any_source(T);
    test_sendrecv_chain(T);
  }
  test_bad_args();
  return rt_finish("adjoint_comm_p2p");
}
