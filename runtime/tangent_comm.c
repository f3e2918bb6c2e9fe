/*
 * tangent_comm.c - tangent (forward-mode) helpers for the MPI operations that
 * are not linear or whose tangent needs the actual source of a message:
 * Allreduce / Reduce with PROD, MAX and MIN (and SUM, for uniformity), and
 * the point-to-point calls Send, Ssend, Recv, Sendrecv and Sendrecv_replace
 * (see the "Tangents of MPI communication" section of mpiad.h for the
 * contract).
 *
 * Every helper performs the primal operation and propagates the tangents
 * ("_d" buffers).  Element kinds, the process-global scratch buffer, the PROD
 * pair objects and the MAXLOC / MINLOC pairs are those of adjoint_comm.c
 * (comm_internal.h), so the PROD zero handling and the MAX/MIN tie rule
 * (lowest rank) are the same as the adjoint's.
 *
 * Point to point: the primal and the tangent travel as ONE message
 * [primal | tangent] of 2 * count elements, so a wildcard receive matches
 * exactly what the primal receive would match, and the tangent always comes
 * from the actual sender.
 */
#include "comm_internal.h"

#include <limits.h>

/* ------------------------------------------------------------------------- */
/* Reductions                                                                */
/* ------------------------------------------------------------------------- */

/* Sums the tangent contributions `in` (count elements; NULL: zeros) over the
 * ranks of comm: into `out` on every rank (root < 0: MPI_Allreduce) or at the
 * root (MPI_Reduce; `out` is ignored elsewhere).  out NULL: the sum is
 * discarded.  in == out: in place.  tmp: count elements of scratch (may be
 * `in` itself when `in` is scratch). */
static mpiad_result_t sum_tangent(const void *in, void *out, void *tmp,
                                  int count, MPI_Datatype t, size_t esz,
                                  int root, int is_root, MPI_Comm comm) {
  size_t n = (size_t)count;
  int receives = root < 0 || is_root;
  if (!receives) {
    if (!in) {
      zero(tmp, 0, n, esz);
      in = tmp;
    }
    MPIAD_CHECK_MPI(MPI_Reduce(in, NULL, count, t, MPI_SUM, root, comm));
    return MPIAD_SUCCESS;
  }
  void *dst = out;
  if (!dst) {
    dst = tmp; /* receive into scratch, then discard */
    if (in && in != tmp)
      memcpy(tmp, in, n * esz);
    else if (!in)
      zero(tmp, 0, n, esz);
  } else if (in == out) {
    /* already in place */
  } else if (!in) {
    zero(out, 0, n, esz);
  } else {
    if (root < 0)
      MPIAD_CHECK_MPI(MPI_Allreduce(in, out, count, t, MPI_SUM, comm));
    else
      MPIAD_CHECK_MPI(MPI_Reduce(in, out, count, t, MPI_SUM, root, comm));
    return MPIAD_SUCCESS;
  }
  if (root < 0)
    MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, dst, count, t, MPI_SUM, comm));
  else
    MPIAD_CHECK_MPI(
        MPI_Reduce(MPI_IN_PLACE, dst, count, t, MPI_SUM, root, comm));
  return MPIAD_SUCCESS;
}

/* Allreduce (root < 0) or Reduce to root: the primal and the tangent. */
static mpiad_result_t reduce_tan_common(const void *send, const void *send_d,
                                        void *recv, void *recv_d, int count,
                                        MPI_Datatype t, MPI_Op op, int root,
                                        MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !valid_reduce_op(op) || count < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  if (root >= size)
    return MPIAD_ERR_ARG;
  int is_root = root < 0 || rank == root; /* receives the result */
  int in_place = send == MPI_IN_PLACE;
  if (count > 0 && (!send || (is_root && !recv) || (in_place && !is_root)))
    return MPIAD_ERR_ARG;
  /* The tangent's send side mirrors the primal's: MPI_IN_PLACE exactly when
   * the primal is in place (NULL allowed: no derivative on this rank). */
  if ((send_d == MPI_IN_PLACE && !in_place) ||
      (in_place && send_d != MPI_IN_PLACE && send_d != NULL))
    return MPIAD_ERR_ARG;
  if (!is_root)
    recv_d = NULL; /* not written on the other ranks of a Reduce */
  if (count == 0)
    return MPIAD_SUCCESS;
  size_t n = (size_t)count;
  const void *x = in_place ? recv : send;
  const void *xd = in_place ? recv_d : send_d; /* NULL: zero tangent */

  if (op == MPI_SUM) {
    void *tmp;
    if (!carve(n * esz, &tmp, 0, NULL, 0, NULL, 0, NULL))
      return MPIAD_ERR_NOMEM;
    if (root < 0)
      MPIAD_CHECK_MPI(MPI_Allreduce(send, recv, count, t, op, comm));
    else
      MPIAD_CHECK_MPI(MPI_Reduce(send, recv, count, t, op, root, comm));
    return sum_tangent(xd, recv_d, tmp, count, t, esz, root, is_root, comm);
  }

  /* PROD / MAX / MIN: one MPI_Allreduce that gives every rank what it needs
   * for its local term dy/dx_r * x_d_r (computed into T before the primal
   * output, which may be x itself, is written), then the sum of the terms. */
  void *pairs, *T;
  size_t pair_b = op == MPI_PROD ? 2 * n * esz : n * loc_size(kind);
  if (op == MPI_PROD)
    MPIAD_CHECK(ensure_init());
  if (!carve(pair_b, &pairs, n * esz, &T, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  if (op == MPI_PROD) {
    /* (product of the non-zero inputs, number of zero inputs) per element */
    prod_fill(pairs, x, n, kind);
    MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, pairs, count,
                                  mpiad_impl_pair_type[kind],
                                  mpiad_impl_prod_op[kind], comm));
    for (size_t k = 0; k < n; ++k) {
      double g = 0.0;
      if (xd) {
        double d = prod_deriv(ld(x, k, kind), ld(pairs, 2 * k, kind),
                              ld(pairs, 2 * k + 1, kind));
        g = d != 0.0 ? d * ld(xd, k, kind) : 0.0;
      }
      st(T, k, kind, g);
    }
    if (is_root)
      for (size_t k = 0; k < n; ++k)
        st(recv, k, kind,
           ld(pairs, 2 * k + 1, kind) > 0.0 ? 0.0 : ld(pairs, 2 * k, kind));
  } else {
    /* MAXLOC / MINLOC on (value, rank): ties go to the lowest rank */
    loc_fill(pairs, x, n, kind, rank);
    MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, pairs, count, loc_type(kind),
                                  op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC,
                                  comm));
    for (size_t k = 0; k < n; ++k)
      st(T, k, kind,
         xd && loc_i(pairs, k, kind) == rank ? ld(xd, k, kind) : 0.0);
    if (is_root)
      for (size_t k = 0; k < n; ++k)
        st(recv, k, kind, loc_v(pairs, k, kind));
  }
  return sum_tangent(T, recv_d, T, count, t, esz, root, is_root, comm);
}

mpiad_result_t mpiad_allreduce_tan(const void *send, const void *send_d,
                                   void *recv, void *recv_d, int count,
                                   MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  return reduce_tan_common(send, send_d, recv, recv_d, count, t, op, -1, comm);
}

mpiad_result_t mpiad_reduce_tan(const void *send, const void *send_d,
                                void *recv, void *recv_d, int count,
                                MPI_Datatype t, MPI_Op op, int root,
                                MPI_Comm comm) {
  if (root < 0)
    return MPIAD_ERR_ARG;
  return reduce_tan_common(send, send_d, recv, recv_d, count, t, op, root,
                           comm);
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

/* A point-to-point buffer's type: MPI_DOUBLE, MPI_FLOAT or a derived type
 * made of one of them (layout.c).  The packed [primal | tangent] message
 * carries the elements as the basic type, 2 * n of them. */
typedef struct {
  int kind;
  size_t esz;
  mpiad_impl_layout *lay; /* NULL: contiguous */
  MPI_Datatype base;
  int n; /* basic elements in the call's count */
} p2p_type;

static int p2p_type_of(MPI_Datatype t, int count, const void *buf,
                       p2p_type *p) {
  if (mpiad_impl_p2p_layout(t, count, INT_MAX / 2, &p->kind, &p->esz, &p->lay,
                            &p->base, &p->n) != MPIAD_P2P_OK)
    return 0;
  return p->n == 0 || buf != NULL;
}

/* Packs [buf | buf_d] (n elements each through the layout; buf_d NULL:
 * zeros) into p. */
static void pack2(void *p, const void *buf, const void *buf_d,
                  const p2p_type *t) {
  size_t n = (size_t)t->n;
  if (n == 0)
    return;
  mpiad_impl_lgather(p, buf, t->lay, n, t->esz);
  if (buf_d)
    mpiad_impl_lgather(at(p, n, t->esz), buf_d, t->lay, n, t->esz);
  else
    zero(p, n, n, t->esz);
}

/* After a receive of a packed message into p: splits it into buf and buf_d
 * (NULL: discarded), and fills the user status with the primal's count (ut:
 * the user's datatype). */
static mpiad_result_t unpack2(const MPI_Status *s, void *p, void *buf,
                              void *buf_d, const p2p_type *t, MPI_Datatype ut,
                              MPI_Status *status) {
  int m = 0;
  MPIAD_CHECK_MPI(MPI_Get_count(s, t->base, &m));
  if (m == MPI_UNDEFINED || m % 2 != 0 || m / 2 > t->n)
    return MPIAD_ERR_ARG; /* not a message from a tangent helper */
  size_t n = (size_t)(m / 2);
  if (n > 0) {
    mpiad_impl_lscatter(buf, p, t->lay, n, t->esz);
    if (buf_d)
      mpiad_impl_lscatter(buf_d, at(p, n, t->esz), t->lay, n, t->esz);
  }
  if (status != MPI_STATUS_IGNORE) {
    *status = *s;
    MPIAD_CHECK_MPI(MPI_Status_set_elements(status, ut, m / 2));
  }
  return MPIAD_SUCCESS;
}

static mpiad_result_t send_tan_common(const void *buf, const void *buf_d,
                                      int count, MPI_Datatype t, int dest,
                                      int tag, MPI_Comm comm, int sync) {
  p2p_type pt;
  if (!p2p_type_of(t, count, buf, &pt))
    return MPIAD_ERR_ARG;
  void *p;
  if (!carve(2 * (size_t)pt.n * pt.esz, &p, 0, NULL, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  pack2(p, buf, buf_d, &pt);
  if (sync)
    MPIAD_CHECK_MPI(MPI_Ssend(p, 2 * pt.n, pt.base, dest, tag, comm));
  else
    MPIAD_CHECK_MPI(MPI_Send(p, 2 * pt.n, pt.base, dest, tag, comm));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_send_tan(const void *buf, const void *buf_d, int count,
                              MPI_Datatype t, int dest, int tag,
                              MPI_Comm comm) {
  return send_tan_common(buf, buf_d, count, t, dest, tag, comm, 0);
}

mpiad_result_t mpiad_ssend_tan(const void *buf, const void *buf_d, int count,
                               MPI_Datatype t, int dest, int tag,
                               MPI_Comm comm) {
  return send_tan_common(buf, buf_d, count, t, dest, tag, comm, 1);
}

mpiad_result_t mpiad_recv_tan(void *buf, void *buf_d, int count, MPI_Datatype t,
                              int source, int tag, MPI_Comm comm,
                              MPI_Status *status) {
  p2p_type pt;
  if (!p2p_type_of(t, count, buf, &pt))
    return MPIAD_ERR_ARG;
  void *p;
  if (!carve(2 * (size_t)pt.n * pt.esz, &p, 0, NULL, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  MPI_Status s;
  MPIAD_CHECK_MPI(MPI_Recv(p, 2 * pt.n, pt.base, source, tag, comm, &s));
  return unpack2(&s, p, buf, buf_d, &pt, t, status);
}

mpiad_result_t mpiad_sendrecv_tan(const void *sendbuf, const void *send_d,
                                  int sendcount, MPI_Datatype st_, int dest,
                                  int sendtag, void *recvbuf, void *recv_d,
                                  int recvcount, MPI_Datatype rt, int source,
                                  int recvtag, MPI_Comm comm,
                                  MPI_Status *status) {
  p2p_type ps_t, pr_t;
  if (!p2p_type_of(st_, sendcount, sendbuf, &ps_t) ||
      !p2p_type_of(rt, recvcount, recvbuf, &pr_t))
    return MPIAD_ERR_ARG;
  void *ps, *pr;
  if (!carve(2 * (size_t)ps_t.n * ps_t.esz, &ps, 2 * (size_t)pr_t.n * pr_t.esz,
             &pr, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  pack2(ps, sendbuf, send_d, &ps_t);
  MPI_Status s;
  MPIAD_CHECK_MPI(MPI_Sendrecv(ps, 2 * ps_t.n, ps_t.base, dest, sendtag, pr,
                               2 * pr_t.n, pr_t.base, source, recvtag, comm,
                               &s));
  return unpack2(&s, pr, recvbuf, recv_d, &pr_t, rt, status);
}

mpiad_result_t mpiad_sendrecv_replace_tan(void *buf, void *buf_d, int count,
                                          MPI_Datatype t, int dest, int sendtag,
                                          int source, int recvtag,
                                          MPI_Comm comm, MPI_Status *status) {
  p2p_type pt;
  if (!p2p_type_of(t, count, buf, &pt))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)pt.n;
  void *ps, *pr;
  if (!carve(2 * n * pt.esz, &ps, 2 * n * pt.esz, &pr, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  pack2(ps, buf, buf_d, &pt);
  MPI_Status s;
  /* Separate send and receive regions: one MPI_Sendrecv, no copy by MPI. */
  MPIAD_CHECK_MPI(MPI_Sendrecv(ps, 2 * pt.n, pt.base, dest, sendtag, pr,
                               2 * pt.n, pt.base, source, recvtag, comm, &s));
  return unpack2(&s, pr, buf, buf_d, &pt, t, status);
}
