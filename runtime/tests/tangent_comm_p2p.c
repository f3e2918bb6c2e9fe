/*
 * tangent_comm_p2p.c - unit test of the tangents of point-to-point MPI calls
 * (tangent_comm.c), for MPI_DOUBLE and MPI_FLOAT:
 *   - Send/Ssend + Recv on a ring, Sendrecv on a ring (with and without
 *     MPI_ANY_SOURCE / MPI_ANY_TAG) and Sendrecv_replace on a ring: primal
 *     and tangent against the plain MPI operation and its central finite
 *     differences, one MPI call per helper (PMPI wrappers below), the user
 *     status (actual source, tag, PRIMAL element count);
 *   - wildcard receives: rank 0 receives two messages from every other rank
 *     with MPI_ANY_SOURCE / MPI_ANY_TAG; each tangent must come from the
 *     message's actual sender (and tag);
 *   - chains with MPI_PROC_NULL ends and short messages (Sendrecv,
 *     Sendrecv_replace): only the received elements are written;
 *   - NULL tangents on rank 0: zeros are sent, received tangents discarded;
 *   - tangent/adjoint consistency with the adjoint helpers
 *     (mpiad_send_rev / mpiad_recv_{fwd,rev}, mpiad_sendrecv_{fwd,rev},
 *     mpiad_sendrecv_replace_{fwd,rev}): sum over ranks <y_b, y_d> == sum
 *     over ranks <x_b, x_d>.
 */
#include "adjoint_comm_common.h"

static int send_calls, ssend_calls, recv_calls, sendrecv_calls, replace_calls;

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm m) {
  send_calls++;
  return PMPI_Send(b, c, t, d, tag, m);
}
int MPI_Ssend(const void *b, int c, MPI_Datatype t, int d, int tag,
              MPI_Comm m) {
  ssend_calls++;
  return PMPI_Ssend(b, c, t, d, tag, m);
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

static int total_calls(void) {
  return send_calls + ssend_calls + recv_calls + sendrecv_calls + replace_calls;
}

#define N 4
#define NBIG 8

static int right_of(int r) { return (r + 1) % rt_size; }
static int left_of(int r) { return (r - 1 + rt_size) % rt_size; }

enum { RING_SEND, RING_SSEND, RING_SENDRECV, RING_SENDRECV_ANY, RING_REPLACE };
static const char *const PATNAME[] = {"send", "ssend", "sendrecv",
                                      "sendrecv-any", "replace"};

/* One ring transfer: every rank sends x (N elements) to the right and
 * receives y from the left.  tan: through the tangent helpers with the
 * tangents xd -> yd (either may be NULL); else the plain MPI calls (PMPI).
 * For RING_REPLACE, x is copied into y first and y is the replaced buffer
 * (and xd into yd). */
static void ring(const ty_t *T, int pat, int tan, const void *x, const void *xd,
                 void *y, void *yd, MPI_Status *st, const char *label) {
  int R = right_of(rt_rank), L = left_of(rt_rank), even = rt_rank % 2 == 0;
  MPI_Comm w = MPI_COMM_WORLD;
  if (pat == RING_SEND || pat == RING_SSEND) {
    int ss = pat == RING_SSEND && rt_size > 1; /* Ssend to self deadlocks */
    for (int step = 0; step < 2; ++step) {
      if ((step == 0) == even) {
        if (tan)
          RT_OK(ss ? mpiad_ssend_tan(x, xd, N, T->t, R, 7, w)
                   : mpiad_send_tan(x, xd, N, T->t, R, 7, w),
                label);
        else if (ss)
          PMPI_Ssend(x, N, T->t, R, 7, w);
        else
          PMPI_Send(x, N, T->t, R, 7, w);
      } else if (tan) {
        RT_OK(mpiad_recv_tan(y, yd, N, T->t, L, 7, w, st), label);
      } else {
        PMPI_Recv(y, N, T->t, L, 7, w, st);
      }
    }
  } else if (pat == RING_SENDRECV || pat == RING_SENDRECV_ANY) {
    int any = pat == RING_SENDRECV_ANY;
    int src = any ? MPI_ANY_SOURCE : L, tag = any ? MPI_ANY_TAG : 5;
    if (tan)
      RT_OK(mpiad_sendrecv_tan(x, xd, N, T->t, R, 5, y, yd, N, T->t, src, tag,
                               w, st),
            label);
    else
      PMPI_Sendrecv(x, N, T->t, R, 5, y, N, T->t, src, tag, w, st);
  } else {
    memcpy(y, x, N * T->esz);
    if (yd && xd)
      memcpy(yd, xd, N * T->esz);
    if (tan)
      RT_OK(mpiad_sendrecv_replace_tan(y, yd, N, T->t, R, 9, L, MPI_ANY_TAG, w,
                                       st),
            label);
    else
      PMPI_Sendrecv_replace(y, N, T->t, R, 9, L, MPI_ANY_TAG, w, st);
  }
}

/* The ring's tangent against the plain MPI transfer and its central
 * differences, and against the left neighbour's tangent exactly. */
static void test_ring(const ty_t *T, int pat, int nulls) {
  char label[96];
  snprintf(label, sizeof label, "ring %s %s nulls=%d", PATNAME[pat], T->name,
           nulls);
  rseed(500 + 10 * (unsigned long long)pat + (unsigned long long)rt_rank);
  int nh = nulls && rt_rank == 0, L = left_of(rt_rank);
  int lnull = nulls && L == 0; /* the left neighbour has no tangents */
  void *x = talloc(T, N), *xd = talloc(T, N), *y = talloc(T, N),
       *yd = talloc(T, N);
  tfill(T, x, N);
  if (!nh)
    tfill(T, xd, N);
  for (size_t k = 0; k < N; ++k) /* garbage that must be overwritten */
    sv(T, yd, k, 1e3);
  MPI_Status st;
  int c0 = total_calls(), rc0 = replace_calls;
  ring(T, pat, 1, x, nh ? NULL : xd, y, nh ? NULL : yd, &st, label);
  int calls = total_calls() - c0;
  int want_calls = pat == RING_SEND || pat == RING_SSEND ? 2 : 1;
  RT_CHECK(calls == want_calls && replace_calls == rc0,
           "%s: %d MPI calls (%d Sendrecv_replace)", label, calls,
           replace_calls - rc0);
  int cnt = -1;
  PMPI_Get_count(&st, T->t, &cnt);
  RT_CHECK(st.MPI_SOURCE == L && cnt == N &&
               st.MPI_TAG == (pat == RING_REPLACE                     ? 9
                              : pat == RING_SEND || pat == RING_SSEND ? 7
                                                                      : 5),
           "%s: status source %d tag %d count %d", label, st.MPI_SOURCE,
           st.MPI_TAG, cnt);
  /* plain MPI at x and x +- h xd */
  double h = T->f32 ? 1e-2 : 1e-6, tol = T->f32 ? 2e-3 : 1e-8;
  void *xp = talloc(T, N), *xm = talloc(T, N), *y0 = talloc(T, N),
       *yp = talloc(T, N), *ym = talloc(T, N);
  for (size_t k = 0; k < N; ++k) {
    sv(T, xp, k, gv(T, x, k) + h * gv(T, xd, k));
    sv(T, xm, k, gv(T, x, k) - h * gv(T, xd, k));
  }
  ring(T, pat, 0, x, NULL, y0, NULL, MPI_STATUS_IGNORE, label);
  ring(T, pat, 0, xp, NULL, yp, NULL, MPI_STATUS_IGNORE, label);
  ring(T, pat, 0, xm, NULL, ym, NULL, MPI_STATUS_IGNORE, label);
  /* the left neighbour's tangent, exactly */
  void *ld_ = talloc(T, N);
  PMPI_Sendrecv(xd, N, T->t, right_of(rt_rank), 99, ld_, N, T->t, L, 99,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  RT_CHECK(memcmp(y, y0, N * T->esz) == 0, "%s: primal differs from MPI's",
           label);
  if (!nh)
    for (size_t k = 0; k < N; ++k) {
      double fd = (gv(T, yp, k) - gv(T, ym, k)) / (2 * h), td = gv(T, yd, k);
      RT_CHECK(fabs(td - fd) <= tol * (1.0 + fabs(fd)),
               "%s: y_d[%zu] = %.17g, central difference %.17g", label, k, td,
               fd);
      double want = lnull ? 0.0 : gv(T, ld_, k);
      RT_CHECK(td == want, "%s: y_d[%zu] = %.17g, sender's %.17g", label, k, td,
               want);
    }
  free(x), free(xd), free(y), free(yd), free(ld_);
  free(xp), free(xm), free(y0), free(yp), free(ym);
}

/* Rank 0 receives two messages from every other rank with MPI_ANY_SOURCE
 * and MPI_ANY_TAG; rank q sends N - q % 2 elements with tag 100 + q, then
 * N elements with tag 200 + q; x = 10 q + k (+ 0.5 for the second), x_d =
 * 1000 q + k (+ 0.5).  Sends are not synchronized, so the receives may see
 * them in any source order. */
static void test_any_source(const ty_t *T, int nulls) {
  char label[64];
  snprintf(label, sizeof label, "any_source %s nulls=%d", T->name, nulls);
  const int P = rt_size;
  if (P < 2)
    return;
  if (rt_rank == 0) {
    void *buf = talloc(T, N), *bd = talloc(T, N);
    int seen[2][64] = {{0}};
    for (int i = 0; i < 2 * (P - 1); ++i) {
      MPI_Status st;
      for (int k = 0; k < N; ++k)
        sv(T, buf, (size_t)k, -1.0), sv(T, bd, (size_t)k, -1.0);
      RT_OK(mpiad_recv_tan(buf, nulls ? NULL : bd, N, T->t, MPI_ANY_SOURCE,
                           MPI_ANY_TAG, MPI_COMM_WORLD, &st),
            label);
      int q = st.MPI_SOURCE, second = st.MPI_TAG >= 200, cnt = -1;
      PMPI_Get_count(&st, T->t, &cnt);
      int n = second ? N : N - q % 2;
      RT_CHECK(
          q >= 1 && q < P && st.MPI_TAG == (second ? 200 : 100) + q && cnt == n,
          "%s: status source %d tag %d count %d", label, q, st.MPI_TAG, cnt);
      if (q >= 1 && q < P)
        seen[second][q]++;
      double off = second ? 0.5 : 0.0;
      for (int k = 0; k < N; ++k) {
        double wx = k < n ? 10.0 * q + k + off : -1.0;
        double wd = nulls ? -1.0 : k < n ? 1000.0 * q + k + off : -1.0;
        RT_CHECK(gv(T, buf, (size_t)k) == wx && gv(T, bd, (size_t)k) == wd,
                 "%s: from %d tag %d: y[%d] = %g (want %g), y_d = %g (want "
                 "%g)",
                 label, q, st.MPI_TAG, k, gv(T, buf, (size_t)k), wx,
                 gv(T, bd, (size_t)k), wd);
      }
    }
    for (int q = 1; q < P; ++q)
      RT_CHECK(seen[0][q] == 1 && seen[1][q] == 1,
               "%s: %d and %d messages from %d", label, seen[0][q], seen[1][q],
               q);
    free(buf), free(bd);
  } else {
    void *x = talloc(T, N), *xd = talloc(T, N);
    for (int m = 0; m < 2; ++m) {
      double off = m ? 0.5 : 0.0;
      for (int k = 0; k < N; ++k) {
        sv(T, x, (size_t)k, 10.0 * rt_rank + k + off);
        sv(T, xd, (size_t)k, 1000.0 * rt_rank + k + off);
      }
      RT_OK(mpiad_send_tan(x, xd, m ? N : N - rt_rank % 2, T->t, 0,
                           (m ? 200 : 100) + rt_rank, MPI_COMM_WORLD),
            label);
    }
    free(x), free(xd);
  }
  /* The next test's messages must not meet these wildcard receives. */
  PMPI_Barrier(MPI_COMM_WORLD);
}

/* Chains with MPI_PROC_NULL ends and short messages: rank r sends 2 + r
 * elements to r + 1 and receives at most NBIG (Sendrecv) or 2 + r
 * (Sendrecv_replace) from r - 1, i.e. 1 + r; the rest is kept. */
static void test_chain(const ty_t *T, int replace) {
  char label[64];
  snprintf(label, sizeof label, "chain %s %s",
           replace ? "sendrecv_replace" : "sendrecv", T->name);
  int r = rt_rank, ns = 2 + r, got = r > 0 ? 1 + r : 0;
  int dest = r + 1 < rt_size ? r + 1 : MPI_PROC_NULL;
  int src = r > 0 ? r - 1 : MPI_PROC_NULL;
  void *x = talloc(T, NBIG), *xd = talloc(T, NBIG), *y = talloc(T, NBIG),
       *yd = talloc(T, NBIG);
  for (int k = 0; k < NBIG; ++k) {
    sv(T, x, (size_t)k, 10.0 * r + k);
    sv(T, xd, (size_t)k, 1000.0 * r + k);
    sv(T, y, (size_t)k, -1.0 - k);
    sv(T, yd, (size_t)k, -100.0 - k);
  }
  MPI_Status st;
  int want_src = src, want_tag = r > 0 ? 3 : MPI_ANY_TAG;
  if (replace) {
    /* the buffer holds x; the first 1 + r elements are replaced */
    memcpy(y, x, NBIG * T->esz);
    memcpy(yd, xd, NBIG * T->esz);
    RT_OK(mpiad_sendrecv_replace_tan(y, yd, ns, T->t, dest, 3, src, MPI_ANY_TAG,
                                     MPI_COMM_WORLD, &st),
          label);
  } else {
    RT_OK(mpiad_sendrecv_tan(x, xd, ns, T->t, dest, 3, y, yd, NBIG, T->t, src,
                             MPI_ANY_TAG, MPI_COMM_WORLD, &st),
          label);
  }
  int cnt = -1;
  PMPI_Get_count(&st, T->t, &cnt);
  RT_CHECK(st.MPI_SOURCE == want_src && st.MPI_TAG == want_tag && cnt == got,
           "%s: status source %d tag %d count %d", label, st.MPI_SOURCE,
           st.MPI_TAG, cnt);
  int bad = 0;
  for (int k = 0; k < NBIG; ++k) {
    double wy, wd;
    if (k < got) {
      wy = 10.0 * (r - 1) + k;
      wd = 1000.0 * (r - 1) + k;
    } else if (replace) {
      wy = 10.0 * r + k;
      wd = 1000.0 * r + k;
    } else {
      wy = -1.0 - k;
      wd = -100.0 - k;
    }
    bad += gv(T, y, (size_t)k) != wy || gv(T, yd, (size_t)k) != wd;
  }
  RT_CHECK(bad == 0, "%s: %d wrong entries", label, bad);
  free(x), free(xd), free(y), free(yd);
}

/* A receive from MPI_PROC_NULL: nothing written, status as MPI's. */
static void test_proc_null(const ty_t *T) {
  double y[2] = {5, 6}, yd[2] = {7, 8};
  float yf[2] = {5, 6}, ydf[2] = {7, 8};
  MPI_Status st;
  RT_OK(mpiad_recv_tan(T->f32 ? (void *)yf : (void *)y,
                       T->f32 ? (void *)ydf : (void *)yd, 2, T->t,
                       MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st),
        "proc_null");
  int cnt = -1;
  PMPI_Get_count(&st, T->t, &cnt);
  RT_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0,
           "proc_null: source %d count %d", st.MPI_SOURCE, cnt);
  RT_CHECK(y[0] == 5 && y[1] == 6 && yd[0] == 7 && yd[1] == 8 && yf[0] == 5 &&
               ydf[1] == 8,
           "proc_null: buffers changed");
  RT_OK(
      mpiad_send_tan(y, NULL, 2, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD),
      "proc_null send");
}

/* ------------------------------------------------------------------------- */
/* Tangent / adjoint consistency                                             */
/* ------------------------------------------------------------------------- */

static void zero_like(const ty_t *T, void *p, size_t n) {
  memset(p, 0, n * T->esz);
}

static void test_consistency(const ty_t *T, int pat) {
  char label[96];
  snprintf(label, sizeof label, "tan/adj %s %s", PATNAME[pat], T->name);
  rseed(700 + 10 * (unsigned long long)pat + (unsigned long long)rt_rank);
  int R = right_of(rt_rank), L = left_of(rt_rank), even = rt_rank % 2 == 0;
  MPI_Comm w = MPI_COMM_WORLD;
  void *x = talloc(T, N), *xd = talloc(T, N), *yb = talloc(T, N);
  tfill(T, x, N);
  tfill(T, xd, N);
  tfill(T, yb, N);
  /* tangent */
  void *y = talloc(T, N), *yd = talloc(T, N);
  ring(T, pat, 1, x, xd, y, yd, MPI_STATUS_IGNORE, label);
  /* adjoint: forward sweep (recording), then reverse sweep */
  /* x_b starts from random values: the adjoint accumulates into it */
  void *y2 = talloc(T, N), *xb0 = talloc(T, N), *rb = tdup(T, yb, N);
  tfill(T, xb0, N);
  void *xb = tdup(T, xb0, N);
  int any = pat == RING_SENDRECV_ANY;
  if (pat == RING_SEND || pat == RING_SSEND) {
    for (int step = 0; step < 2; ++step) {
      if ((step == 0) == even)
        RT_OK(mpiad_send_fwd(x, N, T->t, R, 7, w), label);
      else
        RT_OK(mpiad_recv_fwd(y2, N, T->t, L, 7, w, MPI_STATUS_IGNORE), label);
    }
    for (int step = 1; step >= 0; --step) {
      if ((step == 0) == even)
        RT_OK(mpiad_send_rev(xb, N, T->t, R, 7, w), label);
      else
        RT_OK(mpiad_recv_rev(rb, N, T->t, w), label);
    }
  } else if (pat == RING_SENDRECV || any) {
    RT_OK(mpiad_sendrecv_fwd(x, N, T->t, R, 5, y2, N, T->t,
                             any ? MPI_ANY_SOURCE : L, any ? MPI_ANY_TAG : 5, w,
                             MPI_STATUS_IGNORE),
          label);
    if (any)
      PMPI_Barrier(w); /* see adjoint_comm_p2p.c: wildcard adjoints */
    RT_OK(mpiad_sendrecv_rev(xb, N, T->t, R, 5, rb, N, T->t,
                             any ? MPI_ANY_TAG : 5, w),
          label);
  } else {
    memcpy(y2, x, N * T->esz);
    RT_OK(mpiad_sendrecv_replace_fwd(y2, N, T->t, R, 9, L, MPI_ANY_TAG, w,
                                     MPI_STATUS_IGNORE),
          label);
    PMPI_Barrier(w);
    RT_OK(mpiad_sendrecv_replace_rev(rb, N, T->t, R, 9, MPI_ANY_TAG, w), label);
    /* the buffer's adjoint is now the input's */
    memcpy(xb, rb, N * T->esz);
    zero_like(T, xb0, N);
  }
  RT_CHECK(mpiad_tape_bytes() == 0, "%s: tape holds %zu bytes", label,
           mpiad_tape_bytes());
  RT_CHECK(memcmp(y, y2, N * T->esz) == 0,
           "%s: tangent and adjoint primal outputs differ", label);
  if (pat != RING_REPLACE)
    RT_CHECK(tallzero(T, rb, N), "%s: recv_b not zeroed", label);
  double scale = tadot(T, yb, yd, N);
  double lhs = tdot(T, yb, yd, N), rhs = tdiffdot(T, xb, xb0, xd, N, &scale);
  check_ident(label, lhs, rhs, scale, T->tol);
  free(x), free(xd), free(yb), free(y), free(yd), free(y2), free(xb), free(rb),
      free(xb0);
}

static void test_bad_args(void) {
  int v[2] = {0, 0};
  RT_CHECK(mpiad_send_tan(v, v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) ==
               MPIAD_ERR_ARG,
           "MPI_INT accepted");
  /* a plain message of odd length is not a tangent message */
  double a[3] = {1, 2, 3}, b[3], bd[3];
  MPI_Request req;
  PMPI_Isend(a, 3, MPI_DOUBLE, rt_rank, 42, MPI_COMM_WORLD, &req);
  RT_CHECK(mpiad_recv_tan(b, bd, 3, MPI_DOUBLE, rt_rank, 42, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE) == MPIAD_ERR_ARG,
           "odd-length plain message accepted");
  PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  ty_init();
  if (rt_size > 64) {
    fprintf(stderr, "at most 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int ti = 0; ti < 2; ++ti) {
    const ty_t *T = &TY[ti];
    for (int pat = RING_SEND; pat <= RING_REPLACE; ++pat) {
      for (int nulls = 0; nulls <= 1; ++nulls)
        test_ring(T, pat, nulls);
      test_consistency(T, pat);
    }
    for (int nulls = 0; nulls <= 1; ++nulls)
      test_any_source(T, nulls);
    test_chain(T, 0);
    test_chain(T, 1);
    test_proc_null(T);
  }
  test_bad_args();
  return rt_finish("tangent_comm_p2p");
}
