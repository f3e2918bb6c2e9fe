/*
 * gpu_tangent.cu - unit test of the tangent (forward-mode) helpers of
 * libmpiad_gpu on device buffers: allreduce_tan and reduce_tan (every op,
 * in place and not, NULL tangents, several roots), send_tan / recv_tan,
 * sendrecv_tan and sendrecv_replace_tan (rings, MPI_PROC_NULL, open chains,
 * wildcards and short messages on the MPI path), MPI_DOUBLE and MPI_FLOAT:
 *   - the primal outputs against the formulas of the test data;
 *   - the tangents against J dx computed on the host from the formulas
 *     (for PROD the product of the other ranks' inputs, for MAX/MIN the
 *     lowest owner rank);
 *   - the dot-product identity between each tangent helper and the adjoint
 *     helpers of the same call (mpiad_gpu_*_fwd / _rev):
 *     <J dx, y_b> (from the tangent) = <dx, J^T y_b> (from the adjoint),
 *     summed over ranks;
 *   - argument errors (MPIAD_ERR_ARG before any communication).
 * On MPI_COMM_WORLD (default path) and on a duplicate forced to the staged
 * MPI path.
 */
#include "gpu_test.h"

#include <limits.h>

static vec fill(size_t n, double (*f)(int, int), int r) {
  vec v(n);
  for (size_t k = 0; k < n; ++k)
    v[k] = f(r, (int)k);
  return v;
}

static int status_count(const MPI_Status *st, MPI_Datatype t) {
  int c = -1;
  MPI_Get_count(st, t, &c);
  return c;
}

/* ------------------------------------------------------------------------- */
/* Allreduce                                                                 */
/* ------------------------------------------------------------------------- */

/* variant 0: plain; 1: in place (send_d MPI_IN_PLACE); 2: NULL tangents on
 * rank 0; 3: in place with send_d NULL (the input tangent is in recv_d). */
template <class T>
static void test_allreduce(MPI_Comm c, const char *path, int op, int variant) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 23;
  int in_place = variant == 1 || variant == 3,
      null0 = variant == 2 && rank == 0;
  char what[200], w[300];
  static const char *const vn[4] = {"", " in place", " NULL tangents on rank 0",
                                    " in place, send_d NULL"};
  snprintf(what, sizeof what, "%s allreduce_tan %s %s%s", path, op_names[op],
           ty<T>::name(), vn[variant]);

  vec x(n), y(n), dx = fill(n, dxv, rank), jdx(n, 0.0);
  for (int k = 0; k < n; ++k) {
    x[k] = input(op, rank, k, size);
    y[k] = reduce_host(op, k, size);
    for (int q = variant == 2 ? 1 : 0; q < size; ++q)
      jdx[k] += (double)(T)(deriv_host(op, q, k, size) * dxv(q, k));
  }
  T *s = in_place ? NULL : dput<T>(x);
  T *r = dput<T>(in_place ? x : vec(n, -7.0));
  T *sd = in_place || null0 ? NULL : dput<T>(dx);
  T *rd = null0 ? NULL : dput<T>(in_place ? dx : vec(n, -7.0));
  const void *send_d = variant == 1 ? MPI_IN_PLACE : (const void *)sd;
  T_OK(mpiad_gpu_allreduce_tan(in_place ? MPI_IN_PLACE : s, send_d, r, rd, n, t,
                               ops[op], c));
  snprintf(w, sizeof w, "%s: primal", what);
  expect_near(w, dget(r, n), rounded<T>(y), ty<T>::tol());
  vec got_d;
  if (!null0) {
    got_d = dget(rd, n);
    snprintf(w, sizeof w, "%s: tangent", what);
    expect_near(w, got_d, jdx, ty<T>::tol());
  }

  /* The identity against the adjoint of the same call (partial seeds). */
  if (variant != 2) {
    vec yb = fill(n, ybv, rank);
    T *s2 = dput<T>(x), *r2 = dput<T>(vec(n, 0.0));
    T_OK(mpiad_gpu_allreduce_fwd(s2, r2, n, t, ops[op], c));
    T *sb = dput<T>(vec(n, 0.0)), *rb = dput<T>(yb);
    T_OK(mpiad_gpu_allreduce_rev(sb, rb, n, t, ops[op], c, 1));
    check_stack_empty(what);
    vec xb = dget(sb, n);
    expect_dot(what, gsum(dot(got_d, rounded<T>(yb)), c), gsum(dot(dx, xb), c),
               ty<T>::tol());
    T *bufs[4] = {s2, r2, sb, rb};
    for (T *b : bufs)
      mpiad_gpu_free(b);
  }
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(sd);
  mpiad_gpu_free(rd);
}

/* ------------------------------------------------------------------------- */
/* Reduce                                                                    */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_reduce(MPI_Comm c, const char *path, int op, int root,
                        int in_place) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 19;
  int is_root = rank == root, ip = in_place && is_root;
  char what[200], w[300];
  snprintf(what, sizeof what, "%s reduce_tan %s %s root %d%s", path,
           op_names[op], ty<T>::name(), root, in_place ? " in place" : "");
  vec x(n), y(n), dx = fill(n, dxv, rank), jdx(n, 0.0);
  for (int k = 0; k < n; ++k) {
    x[k] = input(op, rank, k, size);
    y[k] = reduce_host(op, k, size);
    for (int q = 0; q < size; ++q)
      jdx[k] += (double)(T)(deriv_host(op, q, k, size) * dxv(q, k));
  }
  /* Non-root ranks pass recv / recv_d buffers too: they must stay as they
   * are. */
  T *s = ip ? NULL : dput<T>(x), *r = dput<T>(ip ? x : vec(n, -7.0));
  T *sd = ip ? NULL : dput<T>(dx), *rd = dput<T>(ip ? dx : vec(n, -7.0));
  T_OK(mpiad_gpu_reduce_tan(ip ? MPI_IN_PLACE : s, ip ? MPI_IN_PLACE : sd, r,
                            rd, n, t, ops[op], root, c));
  vec got_d = dget(rd, n);
  if (is_root) {
    snprintf(w, sizeof w, "%s: primal", what);
    expect_near(w, dget(r, n), rounded<T>(y), ty<T>::tol());
    snprintf(w, sizeof w, "%s: tangent", what);
    expect_near(w, got_d, jdx, ty<T>::tol());
  } else {
    snprintf(w, sizeof w, "%s: recv and recv_d untouched off the root", what);
    vec both = dget(r, n);
    both.insert(both.end(), got_d.begin(), got_d.end());
    expect_near(w, both, vec(2 * (size_t)n, -7.0), 0.0);
  }

  vec yb = fill(n, ybv, root);
  T *s2 = dput<T>(x), *r2 = is_root ? dput<T>(vec(n, 0.0)) : NULL;
  T_OK(mpiad_gpu_reduce_fwd(s2, r2, n, t, ops[op], root, c));
  T *sb = dput<T>(vec(n, 0.0)), *rb = is_root ? dput<T>(yb) : NULL;
  T_OK(mpiad_gpu_reduce_rev(sb, rb, n, t, ops[op], root, c));
  check_stack_empty(what);
  double lhs = is_root ? dot(got_d, rounded<T>(yb)) : 0.0;
  expect_dot(what, gsum(lhs, c), gsum(dot(dx, dget(sb, n)), c), ty<T>::tol());
  T *bufs[8] = {s, r, sd, rd, s2, r2, sb, rb};
  for (T *b : bufs)
    mpiad_gpu_free(b);
}

/* Argument errors, made identically on every rank (so nobody communicates). */
template <class T> static void test_arg_errors(MPI_Comm c, const char *path) {
  MPI_Datatype t = ty<T>::mpi();
  const int n = 3;
  T *a = dput<T>(vec(n, 1.0)), *b = dput<T>(vec(n, 1.0));
  char w[200];
  snprintf(w, sizeof w, "%s allreduce_tan: send_d MPI_IN_PLACE, send not",
           path);
  expect_int(w,
             mpiad_gpu_allreduce_tan(a, MPI_IN_PLACE, b, b, n, t, MPI_SUM, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s allreduce_tan: send in place, send_d a buffer",
           path);
  expect_int(w,
             mpiad_gpu_allreduce_tan(MPI_IN_PLACE, a, b, b, n, t, MPI_SUM, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s allreduce_tan: MPI_LAND", path);
  expect_int(w, mpiad_gpu_allreduce_tan(a, a, b, b, n, t, MPI_LAND, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s reduce_tan: MPI_INT", path);
  expect_int(w, mpiad_gpu_reduce_tan(a, a, b, b, n, MPI_INT, MPI_SUM, 0, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s reduce_tan: root -1", path);
  expect_int(w, mpiad_gpu_reduce_tan(a, a, b, b, n, t, MPI_SUM, -1, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s send_tan: count above INT_MAX / 2", path);
  expect_int(w, mpiad_gpu_send_tan(a, a, INT_MAX / 2 + 1, t, 0, 0, c),
             MPIAD_ERR_ARG);
  snprintf(w, sizeof w, "%s sendrecv_tan: NULL recvbuf", path);
  expect_int(w,
             mpiad_gpu_sendrecv_tan(a, a, n, t, 0, 0, NULL, b, n, t, 0, 0, c,
                                    MPI_STATUS_IGNORE),
             MPIAD_ERR_ARG);
  mpiad_gpu_free(a);
  mpiad_gpu_free(b);
}

/* ------------------------------------------------------------------------- */
/* Send / Recv                                                               */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_send_recv(MPI_Comm c, const char *path, int mpi_path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 5;
  char what[200], w[300];
  MPI_Status st;

  /* MPI_PROC_NULL: nothing sent or received, buffers untouched. */
  snprintf(what, sizeof what, "%s send_tan/recv_tan %s", path, ty<T>::name());
  T *b = dput<T>(vec(n, -7.0)), *bd = dput<T>(vec(n, -7.0));
  T_OK(mpiad_gpu_send_tan(b, bd, n, t, MPI_PROC_NULL, 1, c));
  T_OK(mpiad_gpu_recv_tan(b, bd, n, t, MPI_PROC_NULL, 1, c, &st));
  snprintf(w, sizeof w, "%s: MPI_PROC_NULL buffers", what);
  expect_near(w, dget(b, n), vec(n, -7.0), 0.0);
  expect_near(w, dget(bd, n), vec(n, -7.0), 0.0);
  snprintf(w, sizeof w, "%s: MPI_PROC_NULL status source", what);
  expect_int(w, st.MPI_SOURCE, MPI_PROC_NULL);
  snprintf(w, sizeof w, "%s: MPI_PROC_NULL status count", what);
  expect_int(w, status_count(&st, t), 0);
  mpiad_gpu_free(b);
  mpiad_gpu_free(bd);
  if (size < 2)
    return;

  /* Ring y_r = x_prev (even ranks send first, odd ranks receive first);
   * variant 1: rank 0 has NULL tangents (sends zeros, discards). */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int variant = 0; variant < 2; ++variant) {
    int null0 = variant == 1 && rank == 0;
    vec x = fill(n, val, rank), dx = fill(n, dxv, rank);
    vec xp = fill(n, val, prev), dxp = fill(n, dxv, prev);
    if (variant == 1 && prev == 0)
      dxp = vec(n, 0.0);
    T *s = dput<T>(x), *sd = null0 ? NULL : dput<T>(dx);
    T *r = dput<T>(vec(n, -7.0)), *rd = null0 ? NULL : dput<T>(vec(n, -7.0));
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank % 2 == 0))
        T_OK(mpiad_gpu_send_tan(s, sd, n, t, next, 11, c));
      else
        T_OK(mpiad_gpu_recv_tan(r, rd, n, t, prev, 11, c, &st));
    }
    snprintf(w, sizeof w, "%s ring%s: primal", what,
             variant ? " NULL tangents on rank 0" : "");
    expect_near(w, dget(r, n), rounded<T>(xp), 0.0);
    snprintf(w, sizeof w, "%s ring%s: status", what,
             variant ? " NULL tangents on rank 0" : "");
    expect_true(w, st.MPI_SOURCE == prev && st.MPI_TAG == 11 &&
                       status_count(&st, t) == n);
    vec got_d;
    if (!null0) {
      got_d = dget(rd, n);
      snprintf(w, sizeof w, "%s ring%s: tangent", what,
               variant ? " NULL tangents on rank 0" : "");
      expect_near(w, got_d, rounded<T>(dxp), 0.0);
    }
    if (variant == 0) {
      /* The same ring through the adjoint helpers. */
      vec yb = fill(n, ybv, rank);
      T *r2 = dput<T>(vec(n, 0.0)), *sb = dput<T>(vec(n, 0.0));
      T *rb = dput<T>(yb);
      for (int turn = 0; turn < 2; ++turn) {
        if ((turn == 0) == (rank % 2 == 0))
          T_OK(mpiad_gpu_send_fwd(s, n, t, next, 11, c));
        else
          T_OK(mpiad_gpu_recv_fwd(r2, n, t, prev, 11, c, MPI_STATUS_IGNORE));
      }
      for (int turn = 1; turn >= 0; --turn) {
        if ((turn == 0) == (rank % 2 == 0))
          T_OK(mpiad_gpu_send_rev(sb, n, t, next, 11, c));
        else
          T_OK(mpiad_gpu_recv_rev(rb, n, t, c));
      }
      snprintf(w, sizeof w, "%s ring", what);
      check_stack_empty(w);
      expect_dot(w, gsum(dot(got_d, rounded<T>(yb)), c),
                 gsum(dot(dx, dget(sb, n)), c), ty<T>::tol());
      mpiad_gpu_free(r2);
      mpiad_gpu_free(sb);
      mpiad_gpu_free(rb);
    }
    T *bufs[4] = {s, sd, r, rd};
    for (T *p : bufs)
      mpiad_gpu_free(p);
  }

  if (mpi_path) {
    /* Wildcards and a receive count above what arrives: only [0..n) is
     * written, the status says n. */
    vec x = fill(n, val, rank), dx = fill(n, dxv, rank);
    T *s = dput<T>(x), *sd = dput<T>(dx);
    T *r = dput<T>(vec(n + 2, -7.0)), *rd = dput<T>(vec(n + 2, -7.0));
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank % 2 == 0))
        T_OK(mpiad_gpu_send_tan(s, sd, n, t, next, 3 + rank, c));
      else
        T_OK(mpiad_gpu_recv_tan(r, rd, n + 2, t, MPI_ANY_SOURCE, MPI_ANY_TAG, c,
                                &st));
    }
    vec wx = rounded<T>(fill(n, val, prev)),
        wd = rounded<T>(fill(n, dxv, prev));
    wx.push_back(-7.0);
    wx.push_back(-7.0);
    wd.push_back(-7.0);
    wd.push_back(-7.0);
    snprintf(w, sizeof w, "%s wildcards, short message: primal", what);
    expect_near(w, dget(r, n + 2), wx, 0.0);
    snprintf(w, sizeof w, "%s wildcards, short message: tangent", what);
    expect_near(w, dget(rd, n + 2), wd, 0.0);
    snprintf(w, sizeof w, "%s wildcards, short message: status", what);
    expect_true(w, st.MPI_SOURCE == prev && st.MPI_TAG == 3 + prev &&
                       status_count(&st, t) == n);

    /* A plain message of odd length is not a tangent message. */
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank % 2 == 0))
        T_OK(mpiad_gpu_send(s, 3, t, next, 4, c));
      else
        expect_int("recv_tan of a plain odd-length message",
                   mpiad_gpu_recv_tan(r, rd, 2, t, prev, 4, c, &st),
                   MPIAD_ERR_ARG);
    }
    T *bufs[4] = {s, sd, r, rd};
    for (T *p : bufs)
      mpiad_gpu_free(p);
  }
}

/* ------------------------------------------------------------------------- */
/* Sendrecv                                                                  */
/* ------------------------------------------------------------------------- */

/* variant 0: ring (with itself on one rank); 1: ring, NULL tangents on
 * rank 0; 2: open chain r -> r + 1 (MPI_PROC_NULL at the ends); 3 (MPI
 * path): ring with wildcards and a receive count above what arrives. */
template <class T>
static void test_sendrecv(MPI_Comm c, const char *path, int variant) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 7, extra = variant == 3 ? 2 : 0, rn = n + extra;
  static const char *const vn[4] = {"ring", "ring, NULL tangents on rank 0",
                                    "open chain", "ring, wildcards"};
  char what[200], w[300];
  snprintf(what, sizeof what, "%s sendrecv_tan %s %s", path, ty<T>::name(),
           vn[variant]);
  int chain = variant == 2, null0 = variant == 1 && rank == 0;
  int dest =
      chain ? (rank + 1 < size ? rank + 1 : MPI_PROC_NULL) : (rank + 1) % size;
  int prev =
      chain ? (rank > 0 ? rank - 1 : MPI_PROC_NULL) : (rank + size - 1) % size;
  int source = variant == 3 ? MPI_ANY_SOURCE : prev;
  int rtag = variant == 3 ? MPI_ANY_TAG : prev == MPI_PROC_NULL ? 0 : 20 + prev;
  vec x = fill(n, val, rank), dx = fill(n, dxv, rank);
  /* J dx on this rank: the previous rank's dx (zeros from a NULL tangent),
   * nothing from MPI_PROC_NULL (the buffers keep -7). */
  vec wx(rn, -7.0), wd(rn, -7.0);
  if (prev != MPI_PROC_NULL)
    for (int k = 0; k < n; ++k) {
      wx[k] = (double)(T)val(prev, k);
      wd[k] = variant == 1 && prev == 0 ? 0.0 : (double)(T)dxv(prev, k);
    }
  T *s = dput<T>(x), *sd = null0 ? NULL : dput<T>(dx);
  T *r = dput<T>(vec(rn, -7.0)), *rd = null0 ? NULL : dput<T>(vec(rn, -7.0));
  MPI_Status st;
  T_OK(mpiad_gpu_sendrecv_tan(s, sd, n, t, dest, 20 + rank, r, rd, rn, t,
                              source, rtag, c, &st));
  snprintf(w, sizeof w, "%s: primal", what);
  expect_near(w, dget(r, rn), wx, 0.0);
  vec got_d;
  if (!null0) {
    got_d = dget(rd, rn);
    snprintf(w, sizeof w, "%s: tangent", what);
    expect_near(w, got_d, wd, 0.0);
  }
  snprintf(w, sizeof w, "%s: status", what);
  if (prev == MPI_PROC_NULL)
    expect_true(w, st.MPI_SOURCE == MPI_PROC_NULL && status_count(&st, t) == 0);
  else
    expect_true(w, st.MPI_SOURCE == prev && st.MPI_TAG == 20 + prev &&
                       status_count(&st, t) == n);

  if (variant != 1) {
    /* The identity against mpiad_gpu_sendrecv_fwd / _rev (every rank has
     * tangents and shadows here). */
    vec yb = fill(rn, ybv, rank);
    T *r2 = dput<T>(vec(rn, 0.0)), *sb = dput<T>(vec(n, 0.0));
    T *rb = dput<T>(yb);
    T_OK(mpiad_gpu_sendrecv_fwd(s, n, t, dest, 20 + rank, r2, rn, t, source,
                                rtag, c, MPI_STATUS_IGNORE));
    T_OK(mpiad_gpu_sendrecv_rev(sb, n, t, dest, 20 + rank, rb, rn, t, rtag, c));
    check_stack_empty(what);
    /* J dx restricted to what the primal writes (the rest of recv is not
     * an output of the call). */
    double lhs = 0.0;
    if (prev != MPI_PROC_NULL)
      for (int k = 0; k < n; ++k)
        lhs += got_d[k] * (double)(T)yb[k];
    expect_dot(what, gsum(lhs, c), gsum(dot(dx, dget(sb, n)), c), ty<T>::tol());
    mpiad_gpu_free(r2);
    mpiad_gpu_free(sb);
    mpiad_gpu_free(rb);
  }
  T *bufs[4] = {s, sd, r, rd};
  for (T *p : bufs)
    mpiad_gpu_free(p);
}

/* ------------------------------------------------------------------------- */
/* Sendrecv_replace                                                          */
/* ------------------------------------------------------------------------- */

/* variant 0: ring; 1: ring, NULL tangent on rank 0; 2: open chain r -> r+1;
 * 3 (MPI path): open chain with counts n + r, so rank r > 0 receives one
 * element less than its count and keeps its last element. */
template <class T>
static void test_replace(MPI_Comm c, const char *path, int variant) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  static const char *const vn[4] = {"ring", "ring, NULL tangent on rank 0",
                                    "open chain", "open chain, short messages"};
  char what[200], w[300];
  snprintf(what, sizeof what, "%s sendrecv_replace_tan %s %s", path,
           ty<T>::name(), vn[variant]);
  const int n0 = 6;
  int chain = variant >= 2, null0 = variant == 1 && rank == 0;
  int cnt = variant == 3 ? n0 + rank : n0;
  int dest =
      chain ? (rank + 1 < size ? rank + 1 : MPI_PROC_NULL) : (rank + 1) % size;
  int prev =
      chain ? (rank > 0 ? rank - 1 : MPI_PROC_NULL) : (rank + size - 1) % size;
  int m = prev == MPI_PROC_NULL ? 0 : variant == 3 ? n0 + prev : n0;
  vec x = fill((size_t)cnt, val, rank), dx = fill((size_t)cnt, dxv, rank);
  /* y[k] = x_prev[k] for k < m, else x[k]; likewise the tangent. */
  vec wx = rounded<T>(x), wd = rounded<T>(dx);
  for (int k = 0; k < m; ++k) {
    wx[k] = (double)(T)val(prev, k);
    wd[k] = variant == 1 && prev == 0 ? 0.0 : (double)(T)dxv(prev, k);
  }
  T *b = dput<T>(x), *bd = null0 ? NULL : dput<T>(dx);
  MPI_Status st;
  T_OK(mpiad_gpu_sendrecv_replace_tan(b, bd, cnt, t, dest, 30, prev, 30, c,
                                      &st));
  snprintf(w, sizeof w, "%s: primal", what);
  expect_near(w, dget(b, cnt), wx, 0.0);
  vec got_d;
  if (!null0) {
    got_d = dget(bd, cnt);
    snprintf(w, sizeof w, "%s: tangent", what);
    expect_near(w, got_d, wd, 0.0);
  }
  snprintf(w, sizeof w, "%s: status count", what);
  expect_int(w, status_count(&st, t), m);

  if (variant != 1) {
    vec yb = fill((size_t)cnt, ybv, rank);
    T *b2 = dput<T>(x), *bb = dput<T>(yb);
    T_OK(mpiad_gpu_sendrecv_replace_fwd(b2, cnt, t, dest, 30, prev, 30, c,
                                        MPI_STATUS_IGNORE));
    snprintf(w, sizeof w, "%s: sendrecv_replace_fwd primal", what);
    expect_near(w, dget(b2, cnt), wx, 0.0);
    T_OK(mpiad_gpu_sendrecv_replace_rev(bb, cnt, t, dest, 30, 30, c));
    check_stack_empty(what);
    expect_dot(what, gsum(dot(got_d, rounded<T>(yb)), c),
               gsum(dot(dx, dget(bb, cnt)), c), ty<T>::tol());
    mpiad_gpu_free(b2);
    mpiad_gpu_free(bb);
  }
  mpiad_gpu_free(b);
  mpiad_gpu_free(bd);
}

/* ------------------------------------------------------------------------- */

template <class T>
static void test_all(MPI_Comm c, const char *path, int mpi_path) {
  int size;
  MPI_Comm_size(c, &size);
  for (int op = 0; op < 4; ++op) {
    for (int variant = 0; variant < 4; ++variant)
      test_allreduce<T>(c, path, op, variant);
    for (int root = 0; root<size; root += size> 1 ? size - 1 : 1)
      for (int in_place = 0; in_place < 2; ++in_place)
        test_reduce<T>(c, path, op, root, in_place);
  }
  test_arg_errors<T>(c, path);
  test_send_recv<T>(c, path, mpi_path);
  for (int variant = 0; variant < (mpi_path ? 4 : 3); ++variant) {
    test_sendrecv<T>(c, path, variant);
    test_replace<T>(c, path, variant);
  }
}

int main(int argc, char **argv) {
  int rc = gpu_test_init(&argc, &argv);
  if (rc)
    return rc;
  unsetenv("MPIAD_GPU_COMM");
  MPI_Comm mpi_comm;
  const char *world_path = mpiad_gpu_comm_path(MPI_COMM_WORLD);
  const char *p = dup_with_path("mpi", &mpi_comm);
  if (!world_path || !p) {
    fprintf(stderr, "rank %d: %s\n", t_rank, mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comms[2] = {MPI_COMM_WORLD, mpi_comm};
  const char *paths[2] = {world_path, "mpi"};
  for (int i = 0; i < 2; ++i) {
    if (t_rank == 0)
      printf("communicator %d: path %s\n", i, paths[i]);
    test_all<double>(comms[i], paths[i], strcmp(paths[i], "mpi") == 0);
    test_all<float>(comms[i], paths[i], strcmp(paths[i], "mpi") == 0);
  }
  MPI_Comm_free(&mpi_comm);
  return gpu_test_finish("gpu_tangent");
}
