/*
 * tangent_comm_coll.c - unit test of the tangents of MPI_Allreduce and
 * MPI_Reduce with MPI_SUM / MPI_PROD / MPI_MAX / MPI_MIN (tangent_comm.c),
 * for MPI_DOUBLE and MPI_FLOAT, in place and not, with NULL tangents on
 * rank 0:
 *   - the tangent against central finite differences of the primal MPI
 *     operation along a random direction (double tight, float loose), the
 *     primal output against the plain MPI call, and exactly two collective
 *     calls per helper (PMPI wrappers below);
 *   - PROD with one and two zero factors: exact values (against the product
 *     rule evaluated from the gathered inputs), never NaN;
 *   - MAX/MIN ties: the tangent of the LOWEST tied rank, exactly;
 *   - tangent/adjoint consistency with mpiad_{allreduce,reduce}_{fwd,rev}:
 *     sum over ranks <y_b, y_d> == sum over ranks <x_b, x_d>, and the same
 *     primal output from both.
 */
#include "adjoint_comm_common.h"

static int coll_calls;

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
                  MPI_Comm m) {
  coll_calls++;
  return PMPI_Allreduce(s, r, c, t, o, m);
}
int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
               int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Reduce(s, r, c, t, o, root, m);
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Bcast(b, c, t, root, m);
}

#define N 5
#define MAXP 64

static const MPI_Op OPS[4] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
static const char *const OPNAME[4] = {"sum", "prod", "max", "min"};

static int op_index(MPI_Op op) {
  for (int i = 0; i < 4; ++i)
    if (OPS[i] == op)
      return i;
  return 0;
}

/* root < 0: Allreduce; else Reduce to root. */
static mpiad_result_t call_tan(int root, const void *s, const void *sd, void *r,
                               void *rd, int n, MPI_Datatype t, MPI_Op op) {
  if (root < 0)
    return mpiad_allreduce_tan(s, sd, r, rd, n, t, op, MPI_COMM_WORLD);
  return mpiad_reduce_tan(s, sd, r, rd, n, t, op, root, MPI_COMM_WORLD);
}

static int receives(int root) { return root < 0 || rt_rank == root; }

/* The plain MPI operation (not counted). */
static void ref_op(int root, const void *s, void *r, int n, MPI_Datatype t,
                   MPI_Op op) {
  if (root < 0)
    PMPI_Allreduce(s, r, n, t, op, MPI_COMM_WORLD);
  else
    PMPI_Reduce(s, rt_rank == root ? r : NULL, n, t, op, root, MPI_COMM_WORLD);
}

/* Inputs: for MAX/MIN well separated between ranks (so that a step of the
 * finite difference cannot change the owner), random otherwise. */
static void gen_x(const ty_t *T, void *x, size_t n, MPI_Op op) {
  for (size_t k = 0; k < n; ++k) {
    double v = urand();
    if (op == MPI_MAX || op == MPI_MIN)
      v = 0.25 * (double)((rt_rank + (int)k) % rt_size) + 0.1 * v;
    sv(T, x, k, v);
  }
}

/* ------------------------------------------------------------------------- */
/* Finite differences                                                        */
/* ------------------------------------------------------------------------- */

static void test_fd(const ty_t *T, MPI_Op op, int root, int inplace,
                    int nulls) {
  char label[128];
  snprintf(label, sizeof label, "fd %s %s root=%d inplace=%d nulls=%d",
           OPNAME[op_index(op)], T->name, root, inplace, nulls);
  rseed(1000 + 10 * (unsigned long long)op_index(op) +
        (unsigned long long)rt_rank * 7919);
  int nh = nulls && rt_rank == 0;
  int ip = inplace && receives(root);
  void *x = talloc(T, N), *xd = talloc(T, N), *y = talloc(T, N),
       *yd = talloc(T, N);
  gen_x(T, x, N, op);
  if (!nh)
    tfill(T, xd, N);
  if (ip) {
    memcpy(y, x, N * T->esz);
    memcpy(yd, xd, N * T->esz);
  }
  const void *s = ip ? MPI_IN_PLACE : x;
  /* without derivatives: NULL, or MPI_IN_PLACE with recv_d NULL */
  const void *sd =
      ip ? (nh && root < 0 ? NULL : MPI_IN_PLACE) : (nh ? NULL : xd);
  int c0 = coll_calls;
  RT_OK(call_tan(root, s, sd, y, nh ? NULL : yd, N, T->t, op), label);
  RT_CHECK(coll_calls - c0 == 2, "%s: %d collective calls", label,
           coll_calls - c0);

  /* the primal MPI operation at x and x +- h xd */
  double h = T->f32 ? 1e-2 : 1e-6, tol = T->f32 ? 2e-3 : 1e-8;
  void *xp = talloc(T, N), *xm = talloc(T, N), *y0 = talloc(T, N),
       *yp = talloc(T, N), *ym = talloc(T, N);
  for (size_t k = 0; k < N; ++k) {
    sv(T, xp, k, gv(T, x, k) + h * gv(T, xd, k));
    sv(T, xm, k, gv(T, x, k) - h * gv(T, xd, k));
  }
  ref_op(root, x, y0, N, T->t, op);
  ref_op(root, xp, yp, N, T->t, op);
  ref_op(root, xm, ym, N, T->t, op);
  if (receives(root)) {
    for (size_t k = 0; k < N; ++k) {
      double want = gv(T, y0, k), got = gv(T, y, k);
      double ptol = op == MPI_PROD ? (T->f32 ? 1e-6 : 1e-14) : 0.0;
      RT_CHECK(fabs(got - want) <= ptol * fabs(want),
               "%s: primal y[%zu] = %.17g, MPI gives %.17g", label, k, got,
               want);
      if (nh)
        continue;
      /* the effective step is what the rounded inputs moved by */
      double fd = (gv(T, yp, k) - gv(T, ym, k)) / (2 * h);
      double td = gv(T, yd, k);
      RT_CHECK(isfinite(td) && fabs(td - fd) <= tol * (1.0 + fabs(fd)),
               "%s: y_d[%zu] = %.17g, central difference %.17g", label, k, td,
               fd);
    }
  }
  free(x), free(xd), free(y), free(yd);
  free(xp), free(xm), free(y0), free(yp), free(ym);
}

/* ------------------------------------------------------------------------- */
/* PROD with zeros, MAX/MIN ties: exact values                               */
/* ------------------------------------------------------------------------- */

/* Gathers x and xd (n each) of all ranks into X, XD (rank-major). */
static void gather2(const ty_t *T, const void *x, const void *xd, double *X,
                    double *XD, size_t n) {
  double a[2 * N], *all = malloc(sizeof(double) * 2 * N * (size_t)rt_size);
  for (size_t k = 0; k < n; ++k) {
    a[k] = gv(T, x, k);
    a[n + k] = gv(T, xd, k);
  }
  PMPI_Allgather(a, (int)(2 * n), MPI_DOUBLE, all, (int)(2 * n), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  for (int r = 0; r < rt_size; ++r)
    for (size_t k = 0; k < n; ++k) {
      X[(size_t)r * n + k] = all[(size_t)r * 2 * n + k];
      XD[(size_t)r * n + k] = all[(size_t)r * 2 * n + n + k];
    }
  free(all);
}

/* Element 0: zero on rank 0; 1: zero on rank 0 and the last rank (two zeros
 * when P > 1); 3: zero on the last rank; 2 and 4: no zero. */
static void test_prod_zeros(const ty_t *T, int root, int inplace) {
  char label[96];
  snprintf(label, sizeof label, "prod zeros %s root=%d inplace=%d", T->name,
           root, inplace);
  rseed(2000 + (unsigned long long)rt_rank);
  int last = rt_size - 1, ip = inplace && receives(root);
  void *x = talloc(T, N), *xd = talloc(T, N), *y = talloc(T, N),
       *yd = talloc(T, N);
  for (size_t k = 0; k < N; ++k) {
    double v = 0.5 + 0.5 * fabs(urand());
    sv(T, x, k, urand() < 0 ? -v : v);
  }
  tfill(T, xd, N);
  if (rt_rank == 0)
    sv(T, x, 0, 0.0), sv(T, x, 1, 0.0);
  if (rt_rank == last)
    sv(T, x, 1, 0.0), sv(T, x, 3, 0.0);
  double X[MAXP * N], XD[MAXP * N];
  gather2(T, x, xd, X, XD, N);
  if (ip) {
    memcpy(y, x, N * T->esz);
    memcpy(yd, xd, N * T->esz);
  }
  RT_OK(call_tan(root, ip ? MPI_IN_PLACE : x, ip ? MPI_IN_PLACE : xd, y, yd, N,
                 T->t, MPI_PROD),
        label);
  if (receives(root)) {
    for (size_t k = 0; k < N; ++k) {
      double want = 0.0, scale = 0.0, prod = 1.0;
      for (int r = 0; r < rt_size; ++r) {
        double others = 1.0;
        for (int q = 0; q < rt_size; ++q)
          if (q != r)
            others *= X[(size_t)q * N + k];
        want += others * XD[(size_t)r * N + k];
        scale += fabs(others * XD[(size_t)r * N + k]);
        prod *= X[(size_t)r * N + k];
      }
      double got = gv(T, yd, k), rt = T->f32 ? 1e-6 : 1e-14;
      int nz = 0;
      for (int r = 0; r < rt_size; ++r)
        nz += X[(size_t)r * N + k] == 0.0;
      RT_CHECK(isfinite(got) && fabs(got - want) <= rt * scale,
               "%s: y_d[%zu] = %.17g, want %.17g (%d zeros)", label, k, got,
               want, nz);
      if (nz >= 2)
        RT_CHECK(got == 0.0, "%s: y_d[%zu] = %.17g with %d zeros", label, k,
                 got, nz);
      if (nz >= 1)
        RT_CHECK(gv(T, y, k) == 0.0, "%s: y[%zu] = %g with a zero", label, k,
                 gv(T, y, k));
      else
        RT_CHECK(fabs(gv(T, y, k) - prod) <= rt * fabs(prod),
                 "%s: y[%zu] = %.17g, want %.17g", label, k, gv(T, y, k), prod);
    }
  }
  free(x), free(xd), free(y), free(yd);
}

/* Element 0: all ranks tie; 1: ranks >= 1 tie at the extreme (rank 0 is
 * not extreme); 2: the last rank is the unique extreme; 3, 4: ranks 1 and 2
 * tie if they exist, else the lowest.  The tangent must be the lowest tied
 * rank's, exactly. */
static void test_ties(const ty_t *T, MPI_Op op, int root) {
  char label[96];
  snprintf(label, sizeof label, "ties %s %s root=%d", OPNAME[op_index(op)],
           T->name, root);
  double sgn = op == MPI_MAX ? 1.0 : -1.0;
  int r = rt_rank, P = rt_size;
  void *x = talloc(T, N), *xd = talloc(T, N), *y = talloc(T, N),
       *yd = talloc(T, N);
  for (size_t k = 0; k < N; ++k)
    sv(T, xd, k, 1.0 + r + 0.25 * (double)k); /* exact in float */
  sv(T, x, 0, sgn * 0.5);
  sv(T, x, 1, sgn * (r >= 1 ? 0.875 : 0.125));
  sv(T, x, 2, sgn * (r == P - 1 ? 0.75 : 0.25 + 0.0625 * r));
  sv(T, x, 3, sgn * (r == 1 || r == 2 ? 0.625 : 0.375));
  sv(T, x, 4, sgn * (r == 1 || r == 2 ? 0.625 : 0.375));
  int owner[N] = {0, P > 1 ? 1 : 0, P - 1, P > 1 ? 1 : 0, P > 1 ? 1 : 0};
  RT_OK(call_tan(root, x, xd, y, yd, N, T->t, op), label);
  if (receives(root))
    for (size_t k = 0; k < N; ++k) {
      double want = 1.0 + owner[k] + 0.25 * (double)k;
      RT_CHECK(gv(T, yd, k) == want, "%s: y_d[%zu] = %g, want %g (rank %d)",
               label, k, gv(T, yd, k), want, owner[k]);
    }
  free(x), free(xd), free(y), free(yd);
}

/* ------------------------------------------------------------------------- */
/* Tangent / adjoint consistency                                             */
/* ------------------------------------------------------------------------- */

/* special: PROD with zeros (one and two), MAX/MIN with ties. */
static void test_consistency(const ty_t *T, MPI_Op op, int root, int inplace,
                             int special) {
  char label[128];
  snprintf(label, sizeof label, "tan/adj %s %s root=%d inplace=%d special=%d",
           OPNAME[op_index(op)], T->name, root, inplace, special);
  rseed(3000 + 10 * (unsigned long long)op_index(op) +
        (unsigned long long)rt_rank * 104729);
  int ip = inplace && receives(root), last = rt_size - 1;
  void *x = talloc(T, N), *xd = talloc(T, N), *yb = talloc(T, N);
  gen_x(T, x, N, op);
  tfill(T, xd, N);
  tfill(T, yb, N);
  if (special && op == MPI_PROD) {
    if (rt_rank == 0)
      sv(T, x, 0, 0.0), sv(T, x, 1, 0.0);
    if (rt_rank == last)
      sv(T, x, 1, 0.0);
  } else if (special) {
    sv(T, x, 0, 0.5);
    sv(T, x, 1, rt_rank >= 1 ? 2.0 : 0.125);
  }
  /* tangent */
  void *y = talloc(T, N), *yd = talloc(T, N);
  if (ip) {
    memcpy(y, x, N * T->esz);
    memcpy(yd, xd, N * T->esz);
  }
  RT_OK(call_tan(root, ip ? MPI_IN_PLACE : x, ip ? MPI_IN_PLACE : xd, y, yd, N,
                 T->t, op),
        label);
  /* adjoint: recording forward sweep, then the reverse sweep with y_b */
  /* x_b starts from random values: the adjoint accumulates into it */
  void *y2 = talloc(T, N), *rb = tdup(T, yb, N), *xb0 = talloc(T, N);
  tfill(T, xb0, N);
  void *xb = tdup(T, xb0, N);
  if (ip)
    memcpy(y2, x, N * T->esz);
  const void *s = ip ? MPI_IN_PLACE : x;
  void *sb = ip ? MPI_IN_PLACE : xb;
  if (root < 0) {
    RT_OK(mpiad_allreduce_fwd(s, y2, N, T->t, op, MPI_COMM_WORLD), label);
    RT_OK(mpiad_allreduce_rev(sb, rb, N, T->t, op, MPI_COMM_WORLD, 1), label);
  } else {
    RT_OK(mpiad_reduce_fwd(s, y2, N, T->t, op, root, MPI_COMM_WORLD), label);
    RT_OK(mpiad_reduce_rev(sb, rb, N, T->t, op, root, MPI_COMM_WORLD), label);
  }
  RT_CHECK(mpiad_tape_bytes() == 0, "%s: tape holds %zu bytes", label,
           mpiad_tape_bytes());
  double lhs = 0, rhs, scale = 0;
  if (ip) {
    rhs = tdot(T, rb, xd, N); /* in place: recv_b holds x_b */
    scale = tadot(T, rb, xd, N);
  } else {
    rhs = tdiffdot(T, xb, xb0, xd, N, &scale);
    if (receives(root))
      RT_CHECK(tallzero(T, rb, N), "%s: recv_b not zeroed", label);
  }
  if (receives(root)) {
    lhs = tdot(T, yb, yd, N);
    /* The same MPI reduction, so bitwise equal; except Reduce with PROD,
     * whose tangent reduces the pairs with MPI_Allreduce (every rank needs
     * them) and the adjoint with MPI_Reduce: the order may differ. */
    double ptol = op == MPI_PROD && root >= 0 ? (T->f32 ? 1e-6 : 1e-14) : 0;
    for (size_t k = 0; k < N; ++k)
      RT_CHECK(fabs(gv(T, y, k) - gv(T, y2, k)) <= ptol * fabs(gv(T, y2, k)),
               "%s: primal y[%zu]: tangent %.17g, adjoint %.17g", label, k,
               gv(T, y, k), gv(T, y2, k));
  }
  scale += receives(root) ? tadot(T, yb, yd, N) : 0.0;
  RT_CHECK(isfinite(lhs) && isfinite(rhs), "%s: not finite", label);
  check_ident(label, lhs, rhs, scale, T->tol);
  free(x), free(xd), free(yb), free(y), free(yd), free(y2), free(rb), free(xb),
      free(xb0);
}

/* ------------------------------------------------------------------------- */

static void test_bad_args(void) {
  double a[2] = {1, 2}, b[2], ad[2] = {0, 0}, bd[2];
  int i[2] = {0, 0}, j[2];
  int c0 = coll_calls;
  RT_CHECK(mpiad_allreduce_tan(i, i, j, j, 2, MPI_INT, MPI_SUM,
                               MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "MPI_INT accepted");
  RT_CHECK(mpiad_allreduce_tan(a, ad, b, bd, 2, MPI_DOUBLE, MPI_LAND,
                               MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "MPI_LAND accepted");
  RT_CHECK(mpiad_allreduce_tan(a, MPI_IN_PLACE, b, bd, 2, MPI_DOUBLE, MPI_SUM,
                               MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "MPI_IN_PLACE tangent with a primal not in place accepted");
  RT_CHECK(mpiad_allreduce_tan(MPI_IN_PLACE, ad, b, bd, 2, MPI_DOUBLE, MPI_SUM,
                               MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "a tangent send buffer with an in-place primal accepted");
  RT_CHECK(mpiad_reduce_tan(a, ad, b, bd, 2, MPI_DOUBLE, MPI_SUM, rt_size,
                            MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "root out of range accepted");
  RT_CHECK(coll_calls == c0, "bad arguments made %d collective calls",
           coll_calls - c0);
  /* count 0: no communication, nothing written */
  RT_OK(mpiad_allreduce_tan(a, ad, b, NULL, 0, MPI_DOUBLE, MPI_PROD,
                            MPI_COMM_WORLD),
        "count 0");
  RT_CHECK(coll_calls == c0, "count 0 made %d collective calls",
           coll_calls - c0);
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  ty_init();
  if (rt_size > MAXP) {
    fprintf(stderr, "at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int roots[2] = {-1, rt_size - 1};
  for (int ti = 0; ti < 2; ++ti) {
    const ty_t *T = &TY[ti];
    for (int oi = 0; oi < 4; ++oi)
      for (int ri = 0; ri < 2; ++ri)
        for (int ip = 0; ip <= 1; ++ip) {
          for (int nulls = 0; nulls <= 1; ++nulls)
            test_fd(T, OPS[oi], roots[ri], ip, nulls);
          for (int special = 0; special <= (oi > 0); ++special)
            test_consistency(T, OPS[oi], roots[ri], ip, special);
        }
    for (int ri = 0; ri < 2; ++ri) {
      test_prod_zeros(T, roots[ri], 0);
      test_prod_zeros(T, roots[ri], 1);
      test_ties(T, MPI_MAX, roots[ri]);
      test_ties(T, MPI_MIN, roots[ri]);
    }
  }
  test_bad_args();
  return rt_finish("tangent_comm_coll");
}
