/*
 * gpu_adjoint.cu - unit test of the adjoint helpers of libmpiad_gpu on
 * device buffers: for every helper, MPI_DOUBLE and MPI_FLOAT, in place and
 * not, partial and exact, several roots and NULL shadows,
 *   - the values: the input adjoints against J^T y_b computed on the host
 *     from the formulas of the test data (for PROD the product of the other
 *     ranks' inputs, for MAX/MIN the lowest owner rank), and output
 *     adjoints zeroed;
 *   - the dot-product identity <J dx, y_b> = <dx, J^T y_b>, summed over
 *     ranks, with J dx computed on the host (1e-12 relative for double,
 *     1e-6 for float, whose results are rounded to float);
 *   - the record stack empty after every forward/reverse pair.
 * Point to point: send/recv, sendrecv and sendrecv_replace (rings, NULL
 * shadows, MPI_PROC_NULL, wildcards and short messages on the MPI path).
 * On MPI_COMM_WORLD (default path) and on a duplicate forced to the staged
 * MPI path.
 */
#include "gpu_test.h"

static double xb0v(int r, int k) { return 0.7 - 0.05 * k + 0.01 * r; }

static vec minus(const vec &a, const vec &b) {
  vec d(a.size());
  for (size_t k = 0; k < a.size(); ++k)
    d[k] = a[k] - b[k];
  return d;
}

/* ------------------------------------------------------------------------- */
/* Allreduce                                                                 */
/* ------------------------------------------------------------------------- */

/* variant 0: plain, 1: in place, 2: NULL send_b and recv_b on rank 0 */
template <class T>
static void test_allreduce(MPI_Comm c, const char *path, int op, int variant,
                           int partial) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 23;
  int in_place = variant == 1, null0 = variant == 2 && rank == 0;
  char what[200];
  snprintf(what, sizeof what, "%s allreduce %s %s%s%s", path, op_names[op],
           ty<T>::name(), variant == 1 ? " in place" : "",
           variant == 2 ? " NULL shadows on rank 0" : "");
  if (!partial)
    strncat(what, " exact", sizeof what - strlen(what) - 1);

  vec x(n), y(n), dx(n), yb(n), xb0(n), d(n);
  for (int k = 0; k < n; ++k) {
    x[k] = input(op, rank, k, size);
    y[k] = reduce_host(op, k, size);
    dx[k] = dxv(rank, k);
    yb[k] = partial ? ybv(rank, k) : ybv(0, k); /* exact: equal on all */
    xb0[k] = xb0v(rank, k);
    d[k] = deriv_host(op, rank, k, size);
  }
  /* forward */
  T *s = dput<T>(x), *r = dput<T>(in_place ? x : vec(n, -7.0));
  T_OK(mpiad_gpu_allreduce_fwd(in_place ? MPI_IN_PLACE : s, r, n, t, ops[op],
                               c));
  char w[260];
  snprintf(w, sizeof w, "%s: forward value", what);
  expect_near(w, dget(r, n), rounded<T>(y), ty<T>::tol());

  /* reverse */
  T *sb = variant == 0 || (variant == 2 && !null0) ? dput<T>(xb0) : NULL;
  T *rb = null0 ? NULL : dput<T>(yb);
  T_OK(mpiad_gpu_allreduce_rev(in_place ? MPI_IN_PLACE : sb, rb, n, t, ops[op],
                               c, partial));
  check_stack_empty(what);

  /* y_b seen by the adjoint: summed over the ranks that have one */
  vec ybar(n, 0.0);
  for (int k = 0; k < n; ++k) {
    if (!partial)
      ybar[k] = (double)(T)yb[k];
    else
      for (int q = variant == 2 ? 1 : 0; q < size; ++q)
        ybar[k] += (double)(T)ybv(q, k);
  }
  vec xb(n, 0.0), want(n);
  for (int k = 0; k < n; ++k)
    want[k] = ybar[k] * d[k];
  if (in_place) {
    xb = dget(rb, n);
    snprintf(w, sizeof w, "%s: recv_b = contribution", what);
    expect_near(w, xb, want, ty<T>::tol());
  } else if (!null0) {
    xb = minus(dget(sb, n), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: send_b += contribution", what);
    expect_near(w, xb, want, ty<T>::tol());
    snprintf(w, sizeof w, "%s: recv_b zeroed", what);
    expect_near(w, dget(rb, n), vec(n, 0.0), 0.0);
  }
  /* <J dx, y_b> with J dx_k = sum_q d_q,k dx_q,k (rank 0 has no dx when its
   * shadows are NULL); <dx, J^T y_b> summed over ranks. */
  double lhs = 0.0;
  for (int k = 0; k < n; ++k) {
    double jdx = 0.0;
    for (int q = variant == 2 ? 1 : 0; q < size; ++q)
      jdx += deriv_host(op, q, k, size) * dxv(q, k);
    lhs += jdx * ybar[k];
  }
  double rhs = gsum(null0 ? 0.0 : dot(dx, xb), c);
  expect_dot(what, lhs, rhs, ty<T>::tol());
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
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
  char what[200], w[260];
  snprintf(what, sizeof what, "%s reduce %s %s root %d%s", path, op_names[op],
           ty<T>::name(), root, in_place ? " in place" : "");
  vec x(n), y(n), dx(n), yb(n), xb0(n);
  for (int k = 0; k < n; ++k) {
    x[k] = input(op, rank, k, size);
    y[k] = reduce_host(op, k, size);
    dx[k] = dxv(rank, k);
    yb[k] = ybv(root, k) + 0.5; /* only the root's is used */
    xb0[k] = xb0v(rank, k);
  }
  T *s = dput<T>(x), *r = is_root ? dput<T>(ip ? x : vec(n, -7.0)) : NULL;
  T_OK(mpiad_gpu_reduce_fwd(ip ? MPI_IN_PLACE : s, r, n, t, ops[op], root, c));
  if (is_root) {
    snprintf(w, sizeof w, "%s: forward value", what);
    expect_near(w, dget(r, n), rounded<T>(y), ty<T>::tol());
  }
  T *sb = ip ? NULL : dput<T>(xb0), *rb = is_root ? dput<T>(yb) : NULL;
  T_OK(
      mpiad_gpu_reduce_rev(ip ? MPI_IN_PLACE : sb, rb, n, t, ops[op], root, c));
  check_stack_empty(what);
  vec want(n), xb;
  for (int k = 0; k < n; ++k)
    want[k] = (double)(T)yb[k] * deriv_host(op, rank, k, size);
  if (ip) {
    xb = dget(rb, n);
  } else {
    xb = minus(dget(sb, n), rounded<T>(xb0));
    if (is_root) {
      snprintf(w, sizeof w, "%s: recv_b zeroed", what);
      expect_near(w, dget(rb, n), vec(n, 0.0), 0.0);
    }
  }
  snprintf(w, sizeof w, "%s: input adjoint", what);
  expect_near(w, xb, want, ty<T>::tol());
  double lhs = 0.0;
  for (int k = 0; k < n; ++k) {
    double jdx = 0.0;
    for (int q = 0; q < size; ++q)
      jdx += deriv_host(op, q, k, size) * dxv(q, k);
    lhs += jdx * (double)(T)(ybv(root, k) + 0.5);
  }
  expect_dot(what, lhs, gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

/* ------------------------------------------------------------------------- */
/* Bcast, Allgather, Reduce_scatter_block, Alltoall, Gather, Scatter         */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_bcast(MPI_Comm c, const char *path, int root, int partial) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 9;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s bcast_rev %s root %d%s", path, ty<T>::name(),
           root, partial ? "" : " exact");
  vec yb(n), want(n, 0.0);
  for (int k = 0; k < n; ++k) {
    yb[k] = partial ? ybv(rank, k) : ybv(0, k);
    if (rank == root) {
      if (partial)
        for (int q = 0; q < size; ++q)
          want[k] += (double)(T)ybv(q, k);
      else
        want[k] = (double)(T)yb[k];
    }
  }
  T *bb = dput<T>(yb);
  T_OK(mpiad_gpu_bcast_rev(bb, n, ty<T>::mpi(), root, c, partial));
  vec got = dget(bb, n);
  snprintf(w, sizeof w, "%s: buf_b", what);
  expect_near(w, got, want, ty<T>::tol());
  /* y_r = x_root on every rank: <J dx, y_b> = sum_r <dx_root, y_b_r>
   * (partial) or <dx_root, y_b> (exact, counted once). */
  double lhs = 0.0, rhs = 0.0;
  for (int k = 0; k < n; ++k) {
    if (partial)
      for (int q = 0; q < size; ++q)
        lhs += dxv(root, k) * (double)(T)ybv(q, k);
    else
      lhs += dxv(root, k) * (double)(T)ybv(0, k);
    if (rank == root)
      rhs += dxv(root, k) * got[k];
  }
  expect_dot(what, lhs, gsum(rhs, c), ty<T>::tol());
  mpiad_gpu_free(bb);
}

template <class T>
static void test_allgather(MPI_Comm c, const char *path, int in_place,
                           int partial) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 4;
  const size_t tot = (size_t)n * size;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s allgather_rev %s%s%s", path, ty<T>::name(),
           in_place ? " in place" : "", partial ? "" : " exact");
  vec yb(tot), xb0(n), dx(n), want(n, 0.0);
  for (size_t j = 0; j < tot; ++j)
    yb[j] = partial ? ybv(rank, (int)j) : ybv(0, (int)j);
  for (int k = 0; k < n; ++k) {
    xb0[k] = xb0v(rank, k);
    dx[k] = dxv(rank, k);
    size_t j = (size_t)rank * n + k;
    if (partial)
      for (int q = 0; q < size; ++q)
        want[k] += (double)(T)ybv(q, (int)j);
    else
      want[k] = (double)(T)yb[j];
  }
  T *sb = in_place ? NULL : dput<T>(xb0), *rb = dput<T>(yb);
  T_OK(mpiad_gpu_allgather_rev(in_place ? MPI_IN_PLACE : sb, n, rb, n,
                               ty<T>::mpi(), c, partial));
  vec r = dget(rb, tot), xb;
  vec rwant(tot, 0.0);
  if (in_place) {
    for (int k = 0; k < n; ++k)
      rwant[(size_t)rank * n + k] = want[k];
    xb = vec(r.begin() + (long)rank * n, r.begin() + (long)(rank + 1) * n);
  } else {
    xb = minus(dget(sb, n), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: send_b += slice", what);
    expect_near(w, xb, want, ty<T>::tol());
  }
  snprintf(w, sizeof w, "%s: recv_b", what);
  expect_near(w, r, rwant, ty<T>::tol());
  /* y[block q] = x_q: <J dx, y_b> = sum over y_b seen of <[dx_0..], y_b>. */
  double lhs = 0.0;
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k) {
      size_t j = (size_t)q * n + k;
      if (partial)
        for (int p = 0; p < size; ++p)
          lhs += dxv(q, k) * (double)(T)ybv(p, (int)j);
      else
        lhs += dxv(q, k) * (double)(T)ybv(0, (int)j);
    }
  expect_dot(what, lhs, gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

template <class T>
static void test_reduce_scatter(MPI_Comm c, const char *path, int in_place) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 3;
  const size_t tot = (size_t)n * size;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s reduce_scatter_block_rev %s%s", path,
           ty<T>::name(), in_place ? " in place" : "");
  vec yb(in_place ? tot : (size_t)n, -7.0), xb0(tot), dx(tot), want(tot);
  for (int k = 0; k < n; ++k)
    yb[k] = ybv(rank, k);
  for (size_t j = 0; j < tot; ++j) {
    xb0[j] = xb0v(rank, (int)j);
    dx[j] = dxv(rank, (int)j);
    want[j] = (double)(T)ybv((int)(j / n), (int)(j % n)); /* y_b of block */
  }
  T *sb = in_place ? NULL : dput<T>(xb0), *rb = dput<T>(yb);
  T_OK(mpiad_gpu_reduce_scatter_block_rev(in_place ? MPI_IN_PLACE : sb, rb, n,
                                          ty<T>::mpi(), c));
  vec xb;
  if (in_place) {
    xb = dget(rb, tot);
  } else {
    xb = minus(dget(sb, tot), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: recv_b zeroed", what);
    expect_near(w, dget(rb, n), vec(n, 0.0), 0.0);
  }
  snprintf(w, sizeof w, "%s: input adjoint", what);
  expect_near(w, xb, want, ty<T>::tol());
  /* y_r = sum_q x_q[block r] */
  double lhs = 0.0;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < n; ++k) {
      double jdx = 0.0;
      for (int q = 0; q < size; ++q)
        jdx += dxv(q, r * n + k);
      lhs += jdx * (double)(T)ybv(r, k);
    }
  expect_dot(what, lhs, gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

template <class T>
static void test_alltoall(MPI_Comm c, const char *path, int in_place) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 2;
  const size_t tot = (size_t)n * size;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s alltoall_rev %s%s", path, ty<T>::name(),
           in_place ? " in place" : "");
  /* y_r[block q] = x_q[block r], so x_b_r[block q] = y_b_q[block r]. */
  vec yb(tot), xb0(tot), dx(tot), want(tot);
  for (size_t j = 0; j < tot; ++j) {
    yb[j] = ybv(rank, (int)j);
    xb0[j] = xb0v(rank, (int)j);
    dx[j] = dxv(rank, (int)j);
    int q = (int)(j / n), k = (int)(j % n);
    want[j] = (double)(T)ybv(q, rank * n + k);
  }
  T *sb = in_place ? NULL : dput<T>(xb0), *rb = dput<T>(yb);
  T_OK(mpiad_gpu_alltoall_rev(in_place ? MPI_IN_PLACE : sb, n, rb, n,
                              ty<T>::mpi(), c));
  vec xb;
  if (in_place) {
    xb = dget(rb, tot);
  } else {
    xb = minus(dget(sb, tot), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: recv_b zeroed", what);
    expect_near(w, dget(rb, tot), vec(tot, 0.0), 0.0);
  }
  snprintf(w, sizeof w, "%s: input adjoint", what);
  expect_near(w, xb, want, ty<T>::tol());
  double lhs = 0.0;
  for (int r = 0; r < size; ++r)
    for (int q = 0; q < size; ++q)
      for (int k = 0; k < n; ++k)
        lhs += dxv(q, r * n + k) * (double)(T)ybv(r, q * n + k);
  expect_dot(what, lhs, gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

template <class T>
static void test_gather(MPI_Comm c, const char *path, int root, int in_place) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 3;
  const size_t tot = (size_t)n * size;
  int is_root = rank == root, ip = in_place && is_root;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s gather_rev %s root %d%s", path, ty<T>::name(),
           root, in_place ? " in place" : "");
  /* y_root[block q] = x_q, so x_b_q = y_b[block q]. */
  vec yb(tot), xb0(n), dx(n), want(n);
  for (size_t j = 0; j < tot; ++j)
    yb[j] = ybv(root, (int)j);
  for (int k = 0; k < n; ++k) {
    xb0[k] = xb0v(rank, k);
    dx[k] = dxv(rank, k);
    want[k] = (double)(T)ybv(root, rank * n + k);
  }
  T *sb = ip ? NULL : dput<T>(xb0), *rb = is_root ? dput<T>(yb) : NULL;
  T_OK(mpiad_gpu_gather_rev(ip ? MPI_IN_PLACE : sb, n, rb, n, ty<T>::mpi(),
                            root, c));
  vec xb;
  if (ip) {
    vec r = dget(rb, tot), rwant(tot, 0.0);
    for (int k = 0; k < n; ++k)
      rwant[(size_t)root * n + k] = want[k];
    snprintf(w, sizeof w, "%s: root's recv_b keeps its own block only", what);
    expect_near(w, r, rwant, ty<T>::tol());
    xb = vec(r.begin() + (long)root * n, r.begin() + (long)(root + 1) * n);
  } else {
    xb = minus(dget(sb, n), rounded<T>(xb0));
    if (is_root) {
      snprintf(w, sizeof w, "%s: recv_b zeroed", what);
      expect_near(w, dget(rb, tot), vec(tot, 0.0), 0.0);
    }
  }
  snprintf(w, sizeof w, "%s: input adjoint", what);
  expect_near(w, xb, want, ty<T>::tol());
  double lhs = 0.0;
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k)
      lhs += dxv(q, k) * (double)(T)ybv(root, q * n + k);
  expect_dot(what, lhs, gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

template <class T>
static void test_scatter(MPI_Comm c, const char *path, int root, int in_place) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const int n = 3;
  const size_t tot = (size_t)n * size;
  int is_root = rank == root, ip = in_place && is_root;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s scatter_rev %s root %d%s", path,
           ty<T>::name(), root, in_place ? " in place" : "");
  /* y_r = x_root[block r], so x_b_root[block r] += y_b_r; in place the
   * root's own block is its own output: its adjoint stays as it is. */
  vec yb(n), xb0(tot), dx(tot), want(tot, 0.0);
  for (int k = 0; k < n; ++k)
    yb[k] = ybv(rank, k);
  for (size_t j = 0; j < tot; ++j) {
    xb0[j] = xb0v(root, (int)j);
    dx[j] = dxv(root, (int)j);
    int q = (int)(j / n), k = (int)(j % n);
    want[j] = in_place && q == root ? 0.0 : (double)(T)ybv(q, k);
  }
  T *sb = is_root ? dput<T>(xb0) : NULL, *rb = ip ? NULL : dput<T>(yb);
  T_OK(mpiad_gpu_scatter_rev(sb, n, ip ? MPI_IN_PLACE : rb, n, ty<T>::mpi(),
                             root, c));
  double rhs = 0.0;
  if (is_root) {
    vec xb = minus(dget(sb, tot), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: root's send_b", what);
    expect_near(w, xb, want, ty<T>::tol());
    rhs = dot(dx, xb);
  }
  if (!ip) {
    snprintf(w, sizeof w, "%s: recv_b zeroed", what);
    expect_near(w, dget(rb, n), vec(n, 0.0), 0.0);
  }
  /* The map from x_root to the y_r (r != root when in place). */
  double lhs = 0.0;
  for (int r = 0; r < size; ++r)
    if (!(in_place && r == root))
      for (int k = 0; k < n; ++k)
        lhs += dxv(root, r * n + k) * (double)(T)ybv(r, k);
  expect_dot(what, lhs, gsum(rhs, c), ty<T>::tol());
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_p2p(MPI_Comm c, const char *path, int wildcards) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 5;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s send/recv %s%s", path, ty<T>::name(),
           wildcards ? " with wildcards" : "");

  /* MPI_PROC_NULL on both sides: recorded, reversed as nothing. */
  T *pb = dput<T>(vec(n, 3.0));
  T_OK(mpiad_gpu_send_fwd(pb, n, t, MPI_PROC_NULL, 0, c));
  T_OK(mpiad_gpu_recv_fwd(pb, n, t, MPI_PROC_NULL, 0, c, MPI_STATUS_IGNORE));
  T_OK(mpiad_gpu_recv_rev(pb, n, t, c));
  T_OK(mpiad_gpu_send_rev(pb, n, t, MPI_PROC_NULL, 0, c));
  snprintf(w, sizeof w, "%s: MPI_PROC_NULL", what);
  expect_near(w, dget(pb, n), vec(n, 3.0), 0.0);
  check_stack_empty(w);
  mpiad_gpu_free(pb);
  if (size < 2)
    return;

  /* Forward ring y_r = x_prev (even ranks send first: also right when sends
   * are synchronous), then the reverse in mirror order. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  vec x(n), dx(n), yb(n), xb0(n), want(n);
  for (int k = 0; k < n; ++k) {
    x[k] = val(rank, k);
    dx[k] = dxv(rank, k);
    yb[k] = ybv(rank, k);
    xb0[k] = xb0v(rank, k);
    want[k] = (double)(T)ybv(next, k);
  }
  T *s = dput<T>(x), *r = dput<T>(vec(n, -7.0));
  MPI_Status st;
  for (int turn = 0; turn < 2; ++turn) {
    if ((turn == 0) == (rank % 2 == 0))
      T_OK(mpiad_gpu_send_fwd(s, n, t, next, 11, c));
    else
      T_OK(mpiad_gpu_recv_fwd(r, n, t, wildcards ? MPI_ANY_SOURCE : prev,
                              wildcards ? MPI_ANY_TAG : 11, c, &st));
  }
  snprintf(w, sizeof w, "%s: forward value", what);
  vec xp(n);
  for (int k = 0; k < n; ++k)
    xp[k] = val(prev, k);
  expect_near(w, dget(r, n), rounded<T>(xp), 0.0);
  expect_int("recv_fwd: status source", st.MPI_SOURCE, prev);
  expect_int("recv_fwd: status tag", st.MPI_TAG, 11);

  T *sb = dput<T>(xb0), *rb = dput<T>(yb);
  for (int turn = 1; turn >= 0; --turn) {
    if ((turn == 0) == (rank % 2 == 0))
      T_OK(mpiad_gpu_send_rev(sb, n, t, next, 11, c));
    else
      T_OK(mpiad_gpu_recv_rev(rb, n, t, c));
  }
  check_stack_empty(what);
  vec xb = minus(dget(sb, n), rounded<T>(xb0));
  snprintf(w, sizeof w, "%s: send_b += y_b of the receiver", what);
  expect_near(w, xb, want, ty<T>::tol());
  snprintf(w, sizeof w, "%s: recv_b zeroed", what);
  expect_near(w, dget(rb, n), vec(n, 0.0), 0.0);
  double lhs = 0.0;
  for (int k = 0; k < n; ++k)
    lhs += dxv(prev, k) * (double)(T)yb[k];
  expect_dot(what, gsum(lhs, c), gsum(dot(dx, xb), c), ty<T>::tol());
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

/* Sendrecv: y_r = x_prev.  variant 0: ring (with itself on one rank); 1:
 * ring, NULL shadows on rank 0; 2: open chain r -> r + 1 (MPI_PROC_NULL at
 * the ends); 3 (MPI path): ring with wildcards and a receive count above
 * what arrives. */
template <class T>
static void test_sendrecv(MPI_Comm c, const char *path, int variant) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 6, rn = variant == 3 ? n + 3 : n;
  static const char *const vn[4] = {"ring", "ring, NULL shadows on rank 0",
                                    "open chain", "ring, wildcards"};
  char what[200], w[260];
  snprintf(what, sizeof what, "%s sendrecv %s %s", path, ty<T>::name(),
           vn[variant]);
  int chain = variant == 2, null0 = variant == 1 && rank == 0;
  int dest =
      chain ? (rank + 1 < size ? rank + 1 : MPI_PROC_NULL) : (rank + 1) % size;
  int next = dest;
  int prev =
      chain ? (rank > 0 ? rank - 1 : MPI_PROC_NULL) : (rank + size - 1) % size;
  int source = variant == 3 ? MPI_ANY_SOURCE : prev;
  int rtag = variant == 3 ? MPI_ANY_TAG : prev == MPI_PROC_NULL ? 0 : 40 + prev;
  vec x(n), dx(n), yb(rn), xb0(n), wx(rn, -7.0), want(n, 0.0);
  for (int k = 0; k < n; ++k) {
    x[k] = val(rank, k);
    dx[k] = dxv(rank, k);
    xb0[k] = xb0v(rank, k);
    if (prev != MPI_PROC_NULL)
      wx[k] = (double)(T)val(prev, k);
    /* x_b += y_b of the rank that received x (zeros from NULL shadows) */
    if (next != MPI_PROC_NULL && !(variant == 1 && next == 0))
      want[k] = (double)(T)ybv(next, k);
  }
  for (int k = 0; k < rn; ++k)
    yb[k] = ybv(rank, k);
  T *s = dput<T>(x), *r = dput<T>(vec(rn, -7.0));
  MPI_Status st;
  T_OK(mpiad_gpu_sendrecv_fwd(s, n, t, dest, 40 + rank, r, rn, t, source, rtag,
                              c, &st));
  snprintf(w, sizeof w, "%s: forward value", what);
  expect_near(w, dget(r, rn), wx, 0.0);
  snprintf(w, sizeof w, "%s: forward status", what);
  int cnt = -1;
  MPI_Get_count(&st, t, &cnt);
  if (prev == MPI_PROC_NULL)
    expect_true(w, st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0);
  else
    expect_true(w,
                st.MPI_SOURCE == prev && st.MPI_TAG == 40 + prev && cnt == n);
  expect_int("sendrecv_fwd: one record", (long)mpiad_gpu_record_count(), 1);

  T *sb = null0 ? NULL : dput<T>(xb0), *rb = null0 ? NULL : dput<T>(yb);
  T_OK(mpiad_gpu_sendrecv_rev(sb, n, t, dest, 40 + rank, rb, rn, t, rtag, c));
  check_stack_empty(what);
  vec xb(n, 0.0);
  if (!null0) {
    xb = minus(dget(sb, n), rounded<T>(xb0));
    snprintf(w, sizeof w, "%s: send_b += y_b of the receiver", what);
    expect_near(w, xb, want, ty<T>::tol());
    /* the received part of recv_b is zeroed, the rest is kept */
    vec rw = rounded<T>(yb);
    for (int k = 0; k < (prev == MPI_PROC_NULL ? 0 : n); ++k)
      rw[k] = 0.0;
    snprintf(w, sizeof w, "%s: recv_b", what);
    expect_near(w, dget(rb, rn), rw, 0.0);
  }
  /* <J dx, y_b> = sum_r <dx_prev, y_b_r[0..n)> over ranks with a source
   * and a shadow; <dx, J^T y_b> = sum_r <dx_r, x_b_r>. */
  double lhs = 0.0;
  if (prev != MPI_PROC_NULL && !null0 && !(variant == 1 && prev == 0))
    for (int k = 0; k < n; ++k)
      lhs += dxv(prev, k) * (double)(T)yb[k];
  expect_dot(what, gsum(lhs, c), gsum(null0 ? 0.0 : dot(dx, xb), c),
             ty<T>::tol());
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(sb);
  mpiad_gpu_free(rb);
}

/* Sendrecv_replace: y_r[k] = x_prev[k] for k < m_r (received), else x_r[k].
 * variant 0: ring; 1: ring, NULL shadow on rank 0; 2: open chain; 3 (MPI
 * path): open chain with counts n + r (rank r > 0 receives one element less
 * than its count: the adjoint of its last element flows through). */
template <class T>
static void test_sendrecv_replace(MPI_Comm c, const char *path, int variant) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  static const char *const vn[4] = {"ring", "ring, NULL shadow on rank 0",
                                    "open chain", "open chain, short messages"};
  char what[200], w[260];
  snprintf(what, sizeof what, "%s sendrecv_replace %s %s", path, ty<T>::name(),
           vn[variant]);
  const int n0 = 5;
  int chain = variant >= 2, null0 = variant == 1 && rank == 0;
  int cnt = variant == 3 ? n0 + rank : n0;
  int dest =
      chain ? (rank + 1 < size ? rank + 1 : MPI_PROC_NULL) : (rank + 1) % size;
  int prev =
      chain ? (rank > 0 ? rank - 1 : MPI_PROC_NULL) : (rank + size - 1) % size;
  /* elements received here, and by dest (all of this rank's count) */
  int m = prev == MPI_PROC_NULL ? 0 : variant == 3 ? n0 + prev : n0;
  vec x(cnt), dx(cnt), yb(cnt), wx(cnt), want(cnt);
  for (int k = 0; k < cnt; ++k) {
    x[k] = val(rank, k);
    dx[k] = dxv(rank, k);
    yb[k] = ybv(rank, k);
    wx[k] = (double)(T)(k < m ? val(prev, k) : val(rank, k));
    /* buf_b = (kept part of y_b) + (y_b of dest, which received it all) */
    double g = k < m ? 0.0 : (double)(T)yb[k];
    if (dest != MPI_PROC_NULL && !(variant == 1 && dest == 0))
      g += (double)(T)ybv(dest, k);
    want[k] = g;
  }
  T *b = dput<T>(x);
  MPI_Status st;
  T_OK(mpiad_gpu_sendrecv_replace_fwd(b, cnt, t, dest, 50, prev, 50, c, &st));
  snprintf(w, sizeof w, "%s: forward value", what);
  expect_near(w, dget(b, cnt), wx, 0.0);
  int got = -1;
  MPI_Get_count(&st, t, &got);
  snprintf(w, sizeof w, "%s: status count", what);
  expect_int(w, got, m);
  T *bb = null0 ? NULL : dput<T>(yb);
  T_OK(mpiad_gpu_sendrecv_replace_rev(bb, cnt, t, dest, 50, 50, c));
  check_stack_empty(what);
  vec xb(cnt, 0.0);
  if (!null0) {
    xb = dget(bb, cnt);
    snprintf(w, sizeof w, "%s: buf_b", what);
    expect_near(w, xb, want, ty<T>::tol());
  }
  /* <J dx, y_b> over the ranks with a shadow */
  double lhs = 0.0;
  if (!null0)
    for (int k = 0; k < cnt; ++k) {
      double jdx = k < m ? (variant == 1 && prev == 0 ? 0.0 : dxv(prev, k))
                         : dxv(rank, k);
      lhs += jdx * (double)(T)yb[k];
    }
  expect_dot(what, gsum(lhs, c), gsum(null0 ? 0.0 : dot(dx, xb), c),
             ty<T>::tol());
  mpiad_gpu_free(b);
  mpiad_gpu_free(bb);
}

/* ------------------------------------------------------------------------- */
/* Nested records                                                            */
/* ------------------------------------------------------------------------- */

/* Two recording forwards (allreduce PROD, then reduce MAX to the last rank)
 * reversed in LIFO order: each reverse must find its own record. */
template <class T> static void test_nested(MPI_Comm c, const char *path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 11, root = size - 1;
  char what[200], w[260];
  snprintf(what, sizeof what, "%s nested PROD/MAX records %s", path,
           ty<T>::name());
  vec xp(n), xm(n), yb(n), wp(n), wm(n);
  for (int k = 0; k < n; ++k) {
    xp[k] = input(1, rank, k, size);
    xm[k] = input(2, rank, k, size);
    yb[k] = ybv(rank, k);
  }
  T *sp = dput<T>(xp), *rp = dput<T>(vec(n, 0.0));
  T *sm = dput<T>(xm), *rm = rank == root ? dput<T>(vec(n, 0.0)) : NULL;
  T_OK(mpiad_gpu_allreduce_fwd(sp, rp, n, t, MPI_PROD, c));
  T_OK(mpiad_gpu_reduce_fwd(sm, rm, n, t, MPI_MAX, root, c));
  expect_int("two records", (long)mpiad_gpu_record_count(), 2);
  T *bp = dput<T>(vec(n, 0.0)), *bm = dput<T>(vec(n, 0.0));
  T *rbp = dput<T>(yb), *rbm = rank == root ? dput<T>(yb) : NULL;
  T_OK(mpiad_gpu_reduce_rev(bm, rbm, n, t, MPI_MAX, root, c));
  T_OK(mpiad_gpu_allreduce_rev(bp, rbp, n, t, MPI_PROD, c, 1));
  check_stack_empty(what);
  for (int k = 0; k < n; ++k) {
    double ysum = 0.0;
    for (int q = 0; q < size; ++q)
      ysum += (double)(T)ybv(q, k);
    wp[k] = ysum * deriv_host(1, rank, k, size);
    wm[k] = (double)(T)ybv(root, k) * deriv_host(2, rank, k, size);
  }
  snprintf(w, sizeof w, "%s: PROD adjoint", what);
  expect_near(w, dget(bp, n), wp, ty<T>::tol());
  snprintf(w, sizeof w, "%s: MAX adjoint", what);
  expect_near(w, dget(bm, n), wm, ty<T>::tol());
  T *bufs[8] = {sp, rp, sm, rm, bp, bm, rbp, rbm};
  for (T *b : bufs)
    mpiad_gpu_free(b);
}

/* ------------------------------------------------------------------------- */

template <class T>
static void test_all(MPI_Comm c, const char *path, int mpi_path) {
  int size;
  MPI_Comm_size(c, &size);
  for (int op = 0; op < 4; ++op) {
    for (int variant = 0; variant < 3; ++variant)
      for (int partial = 0; partial < 2; ++partial)
        if (!(variant == 2 && !partial))
          test_allreduce<T>(c, path, op, variant, partial);
    for (int root = 0; root<size; root += size> 1 ? size - 1 : 1)
      for (int in_place = 0; in_place < 2; ++in_place)
        test_reduce<T>(c, path, op, root, in_place);
  }
  for (int partial = 0; partial < 2; ++partial) {
    test_bcast<T>(c, path, 0, partial);
    test_bcast<T>(c, path, size - 1, partial);
    for (int in_place = 0; in_place < 2; ++in_place)
      test_allgather<T>(c, path, in_place, partial);
  }
  for (int in_place = 0; in_place < 2; ++in_place) {
    test_reduce_scatter<T>(c, path, in_place);
    test_alltoall<T>(c, path, in_place);
    for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
      test_gather<T>(c, path, root, in_place);
      test_scatter<T>(c, path, root, in_place);
    }
  }
  test_p2p<T>(c, path, 0);
  if (mpi_path)
    test_p2p<T>(c, path, 1);
  for (int variant = 0; variant < (mpi_path ? 4 : 3); ++variant) {
    test_sendrecv<T>(c, path, variant);
    test_sendrecv_replace<T>(c, path, variant);
  }
  test_nested<T>(c, path);
}

int main(int argc, char **argv) {
  int rc = gpu_test_init(&argc, &argv);
  if (rc)
    return rc;
  unsetenv("MPIAD_GPU_COMM");

  /* First, while no failure is remembered: an invalid MPIAD_GPU_COMM. */
  MPI_Comm bad;
  const char *p = dup_with_path("tcp", &bad);
  expect_true("MPIAD_GPU_COMM=tcp fails", p == NULL);
  expect_true("... saying what is allowed",
              strstr(mpiad_gpu_last_error(), "MPIAD_GPU_COMM must be") != NULL);
  if (t_rank == 0)
    printf("expected error: %s\n", mpiad_gpu_last_error());
  MPI_Comm_free(&bad);

  MPI_Comm mpi_comm;
  const char *world_path = mpiad_gpu_comm_path(MPI_COMM_WORLD);
  p = dup_with_path("mpi", &mpi_comm);
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
  return gpu_test_finish("gpu_adjoint");
}
