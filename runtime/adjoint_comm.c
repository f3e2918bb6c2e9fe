/*
 * adjoint_comm.c - adjoints of MPI communication: recording forward
 * variants (Allreduce/Reduce with PROD/MAX/MIN, Recv, Sendrecv,
 * Sendrecv_replace) and reverse-sweep helpers for the collectives and
 * point-to-point calls (see the "Adjoints of MPI communication" section of
 * mpiad.h for the contract).
 *
 * Element types: MPI_DOUBLE and MPI_FLOAT.  The code is generic over an
 * element kind (K_F64 / K_F32); arithmetic on float data is done in double and
 * rounded once when stored.
 *
 * Memory: one process-global scratch buffer for data and one for int arrays
 * (packed displacements); both grow and are reused, so a steady state
 * allocates nothing.  The derived datatypes and user-defined operations used
 * for PROD are created on first use.  Everything is released when MPI is
 * finalized (a delete callback of an attribute on MPI_COMM_SELF).  The element
 * kind helpers, the scratch, the PROD objects and the MAXLOC pairs are shared
 * with tangent_comm.c through comm_internal.h.
 */
#include "comm_internal.h"
#include "requests.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Tape stack of an element kind. */
static int stack_of(int kind) {
  return kind == K_F64 ? MPIAD_IMPL_STACK_F64 : MPIAD_IMPL_STACK_F32;
}

static void tpush(int which, const void *src, size_t bytes) {
  if (bytes > 0)
    mpiad_impl_push(which, src, bytes);
}

static void tpop(int which, void *dst, size_t bytes) {
  if (bytes > 0)
    mpiad_impl_pop(which, dst, bytes);
}

/* ------------------------------------------------------------------------- */
/* Scratch storage                                                           */
/* ------------------------------------------------------------------------- */

/* Process-global data scratch (16-byte granules, so that carved regions stay
 * aligned for double and for the value/index pair structs). */
static void *scratch;
static size_t scratch_cap;
/* Process-global int scratch (packed displacements). */
static int *iscratch;
static size_t iscratch_cap;

#define GRAIN ((size_t)16)
static size_t round_up(size_t b) { return (b + GRAIN - 1) / GRAIN * GRAIN; }

/* Makes the data scratch at least `bytes` long; contents are not kept. */
static int reserve(size_t bytes) {
  if (bytes <= scratch_cap)
    return 1;
  size_t cap = 2 * scratch_cap > bytes ? 2 * scratch_cap : bytes;
  if (cap < 4096)
    cap = 4096;
  void *p = malloc(cap);
  if (!p)
    return 0;
  free(scratch);
  scratch = p;
  scratch_cap = cap;
  return 1;
}

static int ireserve(size_t n) {
  if (n <= iscratch_cap)
    return 1;
  size_t cap = 2 * iscratch_cap > n ? 2 * iscratch_cap : n;
  if (cap < 64)
    cap = 64;
  int *p = malloc(cap * sizeof *p);
  if (!p)
    return 0;
  free(iscratch);
  iscratch = p;
  iscratch_cap = cap;
  return 1;
}

/* Carves the scratch into up to 4 regions of the given byte sizes (a size of
 * 0 gives a valid, unused pointer).  Returns 0 if memory ran out. */
int mpiad_impl_carve(size_t b0, void **r0, size_t b1, void **r1, size_t b2,
                     void **r2, size_t b3, void **r3) {
  size_t o1 = round_up(b0), o2 = o1 + round_up(b1), o3 = o2 + round_up(b2);
  if (!reserve(o3 + round_up(b3) + GRAIN))
    return 0;
  unsigned char *s = scratch;
  if (r0)
    *r0 = s;
  if (r1)
    *r1 = s + o1;
  if (r2)
    *r2 = s + o2;
  if (r3)
    *r3 = s + o3;
  return 1;
}

/* ------------------------------------------------------------------------- */
/* Lazily created MPI objects, freed at MPI_Finalize                          */
/* ------------------------------------------------------------------------- */

static int initialized;
static int self_keyval = MPI_KEYVAL_INVALID;
MPI_Datatype mpiad_impl_pair_type[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
MPI_Op mpiad_impl_prod_op[2] = {MPI_OP_NULL, MPI_OP_NULL};
static int rev_keyval = MPI_KEYVAL_INVALID;

/* PROD pairs (prod of the non-zero inputs, number of zero inputs). */
static void prod_pair_f64(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const double *a = in;
  double *b = inout;
  for (int i = 0; i < *len; ++i) {
    b[2 * i] *= a[2 * i];
    b[2 * i + 1] += a[2 * i + 1];
  }
}

static void prod_pair_f32(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const float *a = in;
  float *b = inout;
  for (int i = 0; i < *len; ++i) {
    b[2 * i] *= a[2 * i];
    b[2 * i + 1] += a[2 * i + 1];
  }
}

/* Runs first in MPI_Finalize (attributes of MPI_COMM_SELF are deleted
 * before anything else is torn down): frees everything this file made. */
static int finalize_cb(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)attr;
  (void)extra;
  for (int k = 0; k < 2; ++k) {
    if (mpiad_impl_prod_op[k] != MPI_OP_NULL)
      MPI_Op_free(&mpiad_impl_prod_op[k]);
    if (mpiad_impl_pair_type[k] != MPI_DATATYPE_NULL)
      MPI_Type_free(&mpiad_impl_pair_type[k]);
  }
  if (rev_keyval != MPI_KEYVAL_INVALID)
    MPI_Comm_free_keyval(&rev_keyval);
  MPI_Comm_free_keyval(&keyval);
  self_keyval = MPI_KEYVAL_INVALID;
  free(scratch);
  scratch = NULL;
  scratch_cap = 0;
  free(iscratch);
  iscratch = NULL;
  iscratch_cap = 0;
  initialized = 0;
  return MPI_SUCCESS;
}

mpiad_result_t mpiad_impl_comm_init(void) {
  if (initialized)
    return MPIAD_SUCCESS;
  MPIAD_CHECK_MPI(
      MPI_Type_contiguous(2, MPI_DOUBLE, &mpiad_impl_pair_type[K_F64]));
  MPIAD_CHECK_MPI(MPI_Type_commit(&mpiad_impl_pair_type[K_F64]));
  MPIAD_CHECK_MPI(
      MPI_Type_contiguous(2, MPI_FLOAT, &mpiad_impl_pair_type[K_F32]));
  MPIAD_CHECK_MPI(MPI_Type_commit(&mpiad_impl_pair_type[K_F32]));
  MPIAD_CHECK_MPI(MPI_Op_create(prod_pair_f64, 1, &mpiad_impl_prod_op[K_F64]));
  MPIAD_CHECK_MPI(MPI_Op_create(prod_pair_f32, 1, &mpiad_impl_prod_op[K_F32]));
  MPIAD_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_cb,
                                         &self_keyval, NULL));
  MPIAD_CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL));
  initialized = 1;
  return MPIAD_SUCCESS;
}

/* Words of 64 owner flags for n elements. */
static size_t flag_words(size_t n) { return (n + 63) / 64; }

/* Words of 64 bits holding n int32 owner ranks. */
static size_t rank_words(size_t n) { return (n + 1) / 2; }

/* ------------------------------------------------------------------------- */
/* Allreduce                                                                 */
/* ------------------------------------------------------------------------- */

mpiad_result_t mpiad_allreduce_fwd(const void *send, void *recv, int count,
                                   MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  int kind, rank;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !valid_reduce_op(op) || count < 0 ||
      (count > 0 && (!recv || !send)))
    return MPIAD_ERR_ARG;
  if (op == MPI_SUM) {
    MPIAD_CHECK_MPI(MPI_Allreduce(send, recv, count, t, op, comm));
    return MPIAD_SUCCESS;
  }
  size_t n = (size_t)count;
  const void *x = send == MPI_IN_PLACE ? recv : send;
  if (op == MPI_PROD) {
    void *pairs;
    MPIAD_CHECK(ensure_init());
    if (!carve(2 * n * esz, &pairs, 0, NULL, 0, NULL, 0, NULL))
      return MPIAD_ERR_NOMEM;
    prod_fill(pairs, x, n, kind);
    tpush(stack_of(kind), x, n * esz);
    MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, pairs, count,
                                  mpiad_impl_pair_type[kind],
                                  mpiad_impl_prod_op[kind], comm));
    tpush(stack_of(kind), pairs, 2 * n * esz);
    for (size_t k = 0; k < n; ++k)
      st(recv, k, kind,
         ld(pairs, 2 * k + 1, kind) > 0.0 ? 0.0 : ld(pairs, 2 * k, kind));
    return MPIAD_SUCCESS;
  }
  /* MAX / MIN */
  void *pairs, *flags;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (!carve(n * loc_size(kind), &pairs, flag_words(n) * 8, &flags, 0, NULL, 0,
             NULL))
    return MPIAD_ERR_NOMEM;
  loc_fill(pairs, x, n, kind, rank);
  MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, pairs, count, loc_type(kind),
                                op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC, comm));
  uint64_t *fw = flags;
  memset(fw, 0, flag_words(n) * 8);
  for (size_t k = 0; k < n; ++k) {
    st(recv, k, kind, loc_v(pairs, k, kind));
    if (loc_i(pairs, k, kind) == rank)
      fw[k / 64] |= (uint64_t)1 << (k % 64);
  }
  tpush(MPIAD_IMPL_STACK_I64, fw, flag_words(n) * 8);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_allreduce_rev(void *send_b, void *recv_b, int count,
                                   MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                                   int partial) {
  int kind;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !valid_reduce_op(op) || count < 0)
    return MPIAD_ERR_ARG;
  size_t n = (size_t)count;
  int in_place = send_b == MPI_IN_PLACE;
  void *ybar, *x = NULL, *pairs = NULL, *flags = NULL;
  size_t tape_b = op == MPI_PROD  ? 3 * n * esz
                  : op == MPI_SUM ? 0
                                  : flag_words(n) * 8;
  if (!carve(recv_b ? 0 : n * esz, &ybar, tape_b, &x, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  if (recv_b)
    ybar = recv_b;
  else
    zero(ybar, 0, n, esz);
  if (op == MPI_PROD) {
    pairs = at(x, n, esz);
    tpop(stack_of(kind), pairs, 2 * n * esz);
    tpop(stack_of(kind), x, n * esz);
  } else if (op != MPI_SUM) {
    flags = x;
    tpop(MPIAD_IMPL_STACK_I64, flags, flag_words(n) * 8);
  }
  if (partial && count > 0)
    MPIAD_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, ybar, count, t, MPI_SUM, comm));
  if (!recv_b)
    return MPIAD_SUCCESS; /* contributions are zero; nothing to write */
  const uint64_t *fw = flags;
  for (size_t k = 0; k < n; ++k) {
    double y = ld(ybar, k, kind), d;
    if (op == MPI_SUM)
      d = 1.0;
    else if (op == MPI_PROD)
      d = prod_deriv(ld(x, k, kind), ld(pairs, 2 * k, kind),
                     ld(pairs, 2 * k + 1, kind));
    else
      d = (fw[k / 64] >> (k % 64)) & 1 ? 1.0 : 0.0;
    double g = d != 0.0 ? y * d : 0.0;
    if (in_place) {
      st(recv_b, k, kind, g);
    } else {
      if (send_b)
        st(send_b, k, kind, ld(send_b, k, kind) + g);
      st(recv_b, k, kind, 0.0);
    }
  }
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Reduce                                                                    */
/* ------------------------------------------------------------------------- */

mpiad_result_t mpiad_reduce_fwd(const void *send, void *recv, int count,
                                MPI_Datatype t, MPI_Op op, int root,
                                MPI_Comm comm) {
  int kind, rank;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !valid_reduce_op(op) || count < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  int is_root = rank == root;
  if (count > 0 &&
      (!send || (is_root && !recv) || (!is_root && send == MPI_IN_PLACE)))
    return MPIAD_ERR_ARG;
  if (op == MPI_SUM) {
    MPIAD_CHECK_MPI(MPI_Reduce(send, recv, count, t, op, root, comm));
    return MPIAD_SUCCESS;
  }
  size_t n = (size_t)count;
  const void *x = send == MPI_IN_PLACE ? recv : send;
  if (op == MPI_PROD) {
    void *pairs;
    MPIAD_CHECK(ensure_init());
    if (!carve(2 * n * esz, &pairs, 0, NULL, 0, NULL, 0, NULL))
      return MPIAD_ERR_NOMEM;
    prod_fill(pairs, x, n, kind);
    tpush(stack_of(kind), x, n * esz);
    MPIAD_CHECK_MPI(MPI_Reduce(
        is_root ? MPI_IN_PLACE : pairs, is_root ? pairs : NULL, count,
        mpiad_impl_pair_type[kind], mpiad_impl_prod_op[kind], root, comm));
    if (is_root) {
      tpush(stack_of(kind), pairs, 2 * n * esz);
      for (size_t k = 0; k < n; ++k)
        st(recv, k, kind,
           ld(pairs, 2 * k + 1, kind) > 0.0 ? 0.0 : ld(pairs, 2 * k, kind));
    }
    return MPIAD_SUCCESS;
  }
  /* MAX / MIN: the root records the owner rank of every element. */
  void *pairs, *owners;
  if (!carve(n * loc_size(kind), &pairs, rank_words(n) * 8, &owners, 0, NULL, 0,
             NULL))
    return MPIAD_ERR_NOMEM;
  loc_fill(pairs, x, n, kind, rank);
  MPIAD_CHECK_MPI(MPI_Reduce(
      is_root ? MPI_IN_PLACE : pairs, is_root ? pairs : NULL, count,
      loc_type(kind), op == MPI_MAX ? MPI_MAXLOC : MPI_MINLOC, root, comm));
  if (is_root) {
    int32_t *ow = owners;
    memset(ow, 0, rank_words(n) * 8);
    for (size_t k = 0; k < n; ++k) {
      st(recv, k, kind, loc_v(pairs, k, kind));
      ow[k] = loc_i(pairs, k, kind);
    }
    tpush(MPIAD_IMPL_STACK_I64, ow, rank_words(n) * 8);
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_reduce_rev(void *send_b, void *recv_b, int count,
                                MPI_Datatype t, MPI_Op op, int root,
                                MPI_Comm comm) {
  int kind, rank;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !valid_reduce_op(op) || count < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  int is_root = rank == root;
  if (!is_root && send_b == MPI_IN_PLACE)
    return MPIAD_ERR_ARG;
  size_t n = (size_t)count;
  /* Broadcast pack: ybar, then per element (PROD) prod_nonzero, zero_count or
   * (MAX/MIN) the owner rank, as values of type t. */
  size_t per = op == MPI_SUM ? 1 : op == MPI_PROD ? 3 : 2;
  void *pack, *x, *tape;
  if (!carve(per * n * esz, &pack, n * esz, &x, 2 * n * esz + rank_words(n) * 8,
             &tape, 0, NULL))
    return MPIAD_ERR_NOMEM;
  if (op == MPI_PROD) {
    if (is_root) {
      tpop(stack_of(kind), tape, 2 * n * esz);
      for (size_t k = 0; k < n; ++k) {
        st(pack, n + k, kind, ld(tape, 2 * k, kind));
        st(pack, 2 * n + k, kind, ld(tape, 2 * k + 1, kind));
      }
    }
    tpop(stack_of(kind), x, n * esz);
  } else if (op != MPI_SUM && is_root) {
    const int32_t *ow = tape;
    tpop(MPIAD_IMPL_STACK_I64, tape, rank_words(n) * 8);
    for (size_t k = 0; k < n; ++k)
      st(pack, n + k, kind, (double)ow[k]);
  }
  if (is_root) {
    if (recv_b)
      memcpy(pack, recv_b, n * esz);
    else
      zero(pack, 0, n, esz);
  }
  if (count > 0)
    MPIAD_CHECK_MPI(MPI_Bcast(pack, (int)(per * n), t, root, comm));
  int in_place = is_root && send_b == MPI_IN_PLACE;
  void *dst = in_place ? recv_b : send_b;
  if (is_root && !in_place)
    zero(recv_b, 0, n, esz);
  if (!dst)
    return MPIAD_SUCCESS;
  for (size_t k = 0; k < n; ++k) {
    double y = ld(pack, k, kind), d;
    if (op == MPI_SUM)
      d = 1.0;
    else if (op == MPI_PROD)
      d = prod_deriv(ld(x, k, kind), ld(pack, n + k, kind),
                     ld(pack, 2 * n + k, kind));
    else
      d = ld(pack, n + k, kind) == (double)rank ? 1.0 : 0.0;
    double g = d != 0.0 ? y * d : 0.0;
    st(dst, k, kind, (in_place ? 0.0 : ld(dst, k, kind)) + g);
  }
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Bcast                                                                     */
/* ------------------------------------------------------------------------- */

static mpiad_result_t bcast_rev_contiguous(void *buf_b, int count,
                                           MPI_Datatype t, int root,
                                           MPI_Comm comm, int partial, int rank,
                                           size_t esz);

mpiad_result_t mpiad_bcast_rev(void *user_b, int ucount, MPI_Datatype ut,
                               int root, MPI_Comm comm, int partial) {
  int kind, rank;
  size_t esz;
  mpiad_impl_layout *l;
  if (ucount < 0 || !mpiad_impl_type_layout(ut, &kind, &esz, &l) ||
      mpiad_impl_layout_elems(l, ucount) > INT_MAX)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  /* A derived datatype: work on a contiguous array of its elements (below,
   * scratch is carved only where buf_b is NULL).  At the root, whose layout
   * is a send layout and may name an element twice, it starts at zero and is
   * added back; elsewhere it is a copy, written back. */
  int count = (int)mpiad_impl_layout_elems(l, ucount);
  MPI_Datatype t = mpiad_impl_layout_base(l, ut);
  size_t n = (size_t)count;
  void *buf_b = user_b;
  if (l && user_b) {
    buf_b = malloc(n * esz + 1);
    if (!buf_b)
      return MPIAD_ERR_NOMEM;
    if (rank == root)
      zero(buf_b, 0, n, esz);
    else
      mpiad_impl_lgather(buf_b, user_b, l, n, esz);
  }
  mpiad_result_t r = bcast_rev_contiguous(buf_b, count, t, root, comm, partial,
                                          rank, esz);
  if (l && user_b) {
    if (rank == root)
      mpiad_impl_lacc(user_b, buf_b, l, n, kind);
    else
      mpiad_impl_lscatter(user_b, buf_b, l, n, esz);
    free(buf_b);
  }
  return r;
}

static mpiad_result_t bcast_rev_contiguous(void *buf_b, int count,
                                           MPI_Datatype t, int root,
                                           MPI_Comm comm, int partial, int rank,
                                           size_t esz) {
  size_t n = (size_t)count;
  if (partial && count > 0) {
    void *src = buf_b;
    if (!src) {
      if (!carve(n * esz, &src, 0, NULL, 0, NULL, 0, NULL))
        return MPIAD_ERR_NOMEM;
      zero(src, 0, n, esz);
    }
    if (rank == root)
      MPIAD_CHECK_MPI(
          MPI_Reduce(MPI_IN_PLACE, src, count, t, MPI_SUM, root, comm));
    else
      MPIAD_CHECK_MPI(MPI_Reduce(src, NULL, count, t, MPI_SUM, root, comm));
  }
  if (rank != root)
    zero(buf_b, 0, n, esz);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Allgather(v)                                                              */
/* ------------------------------------------------------------------------- */

/* Common tail: g (n elements) is this rank's input adjoint; slice of recv_b
 * at off is the in-place input location. */
static void gather_like_finish(void *send_b, void *recv_b, const void *g,
                               size_t off, size_t n, int kind, size_t esz) {
  if (send_b == MPI_IN_PLACE) {
    if (recv_b)
      memcpy(at(recv_b, off, esz), g, n * esz);
  } else {
    acc(send_b, g, n, kind);
  }
}

mpiad_result_t mpiad_allgather_rev(void *send_b, int sendcount, void *recv_b,
                                   int recvcount, MPI_Datatype t, MPI_Comm comm,
                                   int partial) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || recvcount < 0 ||
      (send_b != MPI_IN_PLACE && sendcount != recvcount))
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  size_t n = (size_t)recvcount, total = n * (size_t)size;
  size_t off = n * (size_t)rank;
  void *g, *zeros;
  if (!carve(n * esz, &g, recv_b ? 0 : total * esz, &zeros, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  if (partial) {
    const void *src = recv_b;
    if (!src) {
      zero(zeros, 0, total, esz);
      src = zeros;
    }
    if (recvcount > 0)
      MPIAD_CHECK_MPI(
          MPI_Reduce_scatter_block(src, g, recvcount, t, MPI_SUM, comm));
  } else if (recv_b) {
    memcpy(g, at(recv_b, off, esz), n * esz);
  } else {
    zero(g, 0, n, esz);
  }
  zero(recv_b, 0, total, esz);
  gather_like_finish(send_b, recv_b, g, off, n, kind, esz);
  return MPIAD_SUCCESS;
}

/* Packed displacements (prefix sums of counts) in the int scratch; returns
 * the total, or -1 if memory ran out or it does not fit an int. */
static long long pack_displs(const int *counts, int size, int **displs) {
  if (!ireserve((size_t)size))
    return -1;
  long long s = 0;
  for (int i = 0; i < size; ++i) {
    if (counts[i] < 0 || s > INT_MAX)
      return -1;
    iscratch[i] = (int)s;
    s += counts[i];
  }
  *displs = iscratch;
  return s;
}

/* One past the last element addressed by the segments (counts, displs). */
static size_t extent(const int *counts, const int *displs, int size) {
  size_t e = 0;
  for (int i = 0; i < size; ++i)
    if (counts[i] > 0 && (size_t)displs[i] + (size_t)counts[i] > e)
      e = (size_t)displs[i] + (size_t)counts[i];
  return e;
}

/* Zeroes the segments of p (NULL: nothing); keeps segment `keep` (-1: none). */
static void zero_segments(void *p, const int *counts, const int *displs,
                          int size, int keep, size_t esz) {
  if (!p)
    return;
  for (int i = 0; i < size; ++i)
    if (i != keep && counts[i] > 0)
      zero(p, (size_t)displs[i], (size_t)counts[i], esz);
}

mpiad_result_t mpiad_allgatherv_rev(void *send_b, int sendcount, void *recv_b,
                                    const int *recvcounts, const int *displs,
                                    MPI_Datatype t, MPI_Comm comm,
                                    int partial) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !recvcounts || !displs)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  if (recvcounts[rank] < 0 ||
      (send_b != MPI_IN_PLACE && sendcount != recvcounts[rank]))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)recvcounts[rank], off = (size_t)displs[rank];
  if (partial) {
    int *pd;
    long long tot = pack_displs(recvcounts, size, &pd);
    if (tot < 0)
      return MPIAD_ERR_ARG;
    int packed = 1;
    for (int i = 0; i < size; ++i)
      packed &= recvcounts[i] == 0 || displs[i] == pd[i];
    void *g, *buf;
    int need_pack = !recv_b || !packed;
    if (!carve(n * esz, &g, need_pack ? (size_t)tot * esz : 0, &buf, 0, NULL, 0,
               NULL))
      return MPIAD_ERR_NOMEM;
    if (need_pack) {
      for (int i = 0; i < size; ++i) {
        if (recvcounts[i] == 0)
          continue;
        if (recv_b)
          memcpy(at(buf, (size_t)pd[i], esz),
                 at(recv_b, (size_t)displs[i], esz),
                 (size_t)recvcounts[i] * esz);
        else
          zero(buf, (size_t)pd[i], (size_t)recvcounts[i], esz);
      }
    } else {
      buf = recv_b;
    }
    if (tot > 0)
      MPIAD_CHECK_MPI(MPI_Reduce_scatter(buf, g, recvcounts, t, MPI_SUM, comm));
    zero_segments(recv_b, recvcounts, displs, size, -1, esz);
    gather_like_finish(send_b, recv_b, g, off, n, kind, esz);
    return MPIAD_SUCCESS;
  }
  /* exact: my slice, no communication */
  if (!recv_b)
    return MPIAD_SUCCESS;
  if (send_b == MPI_IN_PLACE) {
    zero_segments(recv_b, recvcounts, displs, size, rank, esz);
  } else {
    acc(send_b, at(recv_b, off, esz), n, kind);
    zero_segments(recv_b, recvcounts, displs, size, -1, esz);
  }
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Gather(v) / Scatter(v)                                                    */
/* ------------------------------------------------------------------------- */

mpiad_result_t mpiad_gather_rev(void *send_b, int sendcount, void *recv_b,
                                int recvcount, MPI_Datatype t, int root,
                                MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || sendcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  int in_place = send_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    return MPIAD_ERR_ARG;
  if (is_root && (recvcount < 0 || (!in_place && recvcount != sendcount)))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)sendcount;
  size_t total = is_root ? (size_t)recvcount * (size_t)size : 0;
  void *g, *zeros;
  if (!carve(n * esz, &g, is_root && !recv_b ? total * esz : 0, &zeros, 0, NULL,
             0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (is_root && !recv_b) {
    zero(zeros, 0, total, esz);
    src = zeros;
  }
  if (is_root && in_place) {
    if (recvcount > 0)
      MPIAD_CHECK_MPI(MPI_Scatter(src, recvcount, t, MPI_IN_PLACE, recvcount, t,
                                  root, comm));
    /* the root's own slice stays: it is its input adjoint */
    for (int i = 0; i < size; ++i)
      if (i != root)
        zero(recv_b, (size_t)i * (size_t)recvcount, (size_t)recvcount, esz);
    return MPIAD_SUCCESS;
  }
  if (sendcount > 0)
    MPIAD_CHECK_MPI(MPI_Scatter(is_root ? src : NULL, is_root ? recvcount : 0,
                                t, g, sendcount, t, root, comm));
  if (is_root)
    zero(recv_b, 0, total, esz);
  acc(send_b, g, n, kind);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gatherv_rev(void *send_b, int sendcount, void *recv_b,
                                 const int *recvcounts, const int *displs,
                                 MPI_Datatype t, int root, MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || sendcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  int in_place = send_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    return MPIAD_ERR_ARG;
  if (is_root &&
      (!recvcounts || !displs || (!in_place && recvcounts[root] != sendcount)))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)sendcount;
  size_t ext = is_root ? extent(recvcounts, displs, size) : 0;
  void *g, *zeros;
  if (!carve(n * esz, &g, is_root && !recv_b ? ext * esz : 0, &zeros, 0, NULL,
             0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (is_root && !recv_b) {
    zero(zeros, 0, ext, esz);
    src = zeros;
  }
  MPIAD_CHECK_MPI(MPI_Scatterv(is_root ? src : NULL, recvcounts, displs, t,
                               is_root && in_place ? MPI_IN_PLACE : g,
                               sendcount, t, root, comm));
  if (is_root)
    zero_segments(recv_b, recvcounts, displs, size, in_place ? root : -1, esz);
  if (!in_place)
    acc(send_b, g, n, kind);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_scatter_rev(void *send_b, int sendcount, void *recv_b,
                                 int recvcount, MPI_Datatype t, int root,
                                 MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || recvcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  int in_place = recv_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    return MPIAD_ERR_ARG;
  if (is_root && (sendcount < 0 || (!in_place && sendcount != recvcount)))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)recvcount;
  size_t total = is_root ? (size_t)sendcount * (size_t)size : 0;
  void *G, *zeros;
  if (!carve(total * esz, &G, !recv_b ? n * esz : 0, &zeros, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, n, esz);
    src = zeros;
  }
  int cnt = is_root ? sendcount : recvcount;
  if (cnt > 0)
    MPIAD_CHECK_MPI(MPI_Gather(src, in_place ? 0 : recvcount, t,
                               is_root ? G : NULL, is_root ? sendcount : 0, t,
                               root, comm));
  if (!in_place)
    zero(recv_b, 0, n, esz);
  if (is_root && send_b) {
    size_t sc = (size_t)sendcount;
    for (int i = 0; i < size; ++i)
      if (!(in_place && i == root))
        acc(at(send_b, (size_t)i * sc, esz), at(G, (size_t)i * sc, esz), sc,
            kind);
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_scatterv_rev(void *send_b, const int *sendcounts,
                                  const int *displs, void *recv_b,
                                  int recvcount, MPI_Datatype t, int root,
                                  MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || recvcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  int in_place = recv_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    return MPIAD_ERR_ARG;
  if (is_root &&
      (!sendcounts || !displs || (!in_place && sendcounts[root] != recvcount)))
    return MPIAD_ERR_ARG;
  size_t n = (size_t)recvcount;
  int *pd = NULL;
  long long tot = 0;
  if (is_root && (tot = pack_displs(sendcounts, size, &pd)) < 0)
    return MPIAD_ERR_ARG;
  void *G, *zeros;
  if (!carve((size_t)tot * esz, &G, !recv_b ? n * esz : 0, &zeros, 0, NULL, 0,
             NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, n, esz);
    src = zeros;
  }
  /* Gathered into packed segments: send segments may overlap. */
  MPIAD_CHECK_MPI(MPI_Gatherv(src, in_place ? 0 : recvcount, t,
                              is_root ? G : NULL, sendcounts, pd, t, root,
                              comm));
  if (!in_place)
    zero(recv_b, 0, n, esz);
  if (is_root && send_b) {
    for (int i = 0; i < size; ++i)
      if (!(in_place && i == root) && sendcounts[i] > 0)
        acc(at(send_b, (size_t)displs[i], esz), at(G, (size_t)pd[i], esz),
            (size_t)sendcounts[i], kind);
  }
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Reduce_scatter(_block)                                                    */
/* ------------------------------------------------------------------------- */

/* Common part: G (total elements, allgathered adjoint) to the input adjoint. */
static void reduce_scatter_finish(void *send_b, void *recv_b, const void *G,
                                  size_t total, size_t mine, int kind,
                                  size_t esz) {
  if (send_b == MPI_IN_PLACE) {
    if (recv_b)
      memcpy(recv_b, G, total * esz);
  } else {
    zero(recv_b, 0, mine, esz);
    acc(send_b, G, total, kind);
  }
}

mpiad_result_t mpiad_reduce_scatter_block_rev(void *send_b, void *recv_b,
                                              int recvcount, MPI_Datatype t,
                                              MPI_Comm comm) {
  int kind, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || recvcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  size_t n = (size_t)recvcount, total = n * (size_t)size;
  void *G, *zeros;
  if (!carve(total * esz, &G, !recv_b ? n * esz : 0, &zeros, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, n, esz);
    src = zeros;
  }
  if (recvcount > 0)
    MPIAD_CHECK_MPI(MPI_Allgather(src, recvcount, t, G, recvcount, t, comm));
  reduce_scatter_finish(send_b, recv_b, G, total, n, kind, esz);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_reduce_scatter_rev(void *send_b, void *recv_b,
                                        const int *recvcounts, MPI_Datatype t,
                                        MPI_Comm comm) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !recvcounts)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int *pd;
  long long tot = pack_displs(recvcounts, size, &pd);
  if (tot < 0)
    return MPIAD_ERR_ARG;
  size_t n = (size_t)recvcounts[rank];
  void *G, *zeros;
  if (!carve((size_t)tot * esz, &G, !recv_b ? n * esz : 0, &zeros, 0, NULL, 0,
             NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, n, esz);
    src = zeros;
  }
  if (tot > 0)
    MPIAD_CHECK_MPI(
        MPI_Allgatherv(src, recvcounts[rank], t, G, recvcounts, pd, t, comm));
  reduce_scatter_finish(send_b, recv_b, G, (size_t)tot, n, kind, esz);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Alltoall(v)                                                               */
/* ------------------------------------------------------------------------- */

mpiad_result_t mpiad_alltoall_rev(void *send_b, int sendcount, void *recv_b,
                                  int recvcount, MPI_Datatype t,
                                  MPI_Comm comm) {
  int kind, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || recvcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int in_place = send_b == MPI_IN_PLACE;
  if (!in_place && sendcount != recvcount)
    return MPIAD_ERR_ARG;
  size_t rn = (size_t)recvcount * (size_t)size;
  size_t sn = in_place ? 0 : (size_t)sendcount * (size_t)size;
  void *G, *zeros;
  if (!carve(sn * esz, &G, !recv_b ? rn * esz : 0, &zeros, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, rn, esz);
    src = zeros;
  }
  if (in_place) {
    if (recvcount > 0)
      MPIAD_CHECK_MPI(
          MPI_Alltoall(MPI_IN_PLACE, 0, t, src, recvcount, t, comm));
    return MPIAD_SUCCESS;
  }
  if (recvcount > 0)
    MPIAD_CHECK_MPI(MPI_Alltoall(src, recvcount, t, G, sendcount, t, comm));
  zero(recv_b, 0, rn, esz);
  acc(send_b, G, sn, kind);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_alltoallv_rev(void *send_b, const int *sendcounts,
                                   const int *sdispls, void *recv_b,
                                   const int *recvcounts, const int *rdispls,
                                   MPI_Datatype t, MPI_Comm comm) {
  int kind, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || !recvcounts || !rdispls)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int in_place = send_b == MPI_IN_PLACE;
  if (!in_place && (!sendcounts || !sdispls))
    return MPIAD_ERR_ARG;
  size_t rext = extent(recvcounts, rdispls, size);
  if (in_place) {
    void *src = recv_b;
    if (!recv_b) {
      if (!carve(rext * esz, &src, 0, NULL, 0, NULL, 0, NULL))
        return MPIAD_ERR_NOMEM;
      zero(src, 0, rext, esz);
    }
    MPIAD_CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, t, src, recvcounts,
                                  rdispls, t, comm));
    return MPIAD_SUCCESS;
  }
  int *pd;
  long long tot = pack_displs(sendcounts, size, &pd);
  if (tot < 0)
    return MPIAD_ERR_ARG;
  void *G, *zeros;
  if (!carve((size_t)tot * esz, &G, !recv_b ? rext * esz : 0, &zeros, 0, NULL,
             0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = recv_b;
  if (!recv_b) {
    zero(zeros, 0, rext, esz);
    src = zeros;
  }
  /* Swapped layouts: send from the receive segments, receive packed. */
  MPIAD_CHECK_MPI(
      MPI_Alltoallv(src, recvcounts, rdispls, t, G, sendcounts, pd, t, comm));
  zero_segments(recv_b, recvcounts, rdispls, size, -1, esz);
  if (send_b)
    for (int i = 0; i < size; ++i)
      if (sendcounts[i] > 0)
        acc(at(send_b, (size_t)sdispls[i], esz), at(G, (size_t)pd[i], esz),
            (size_t)sendcounts[i], kind);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Scan / Exscan                                                             */
/* ------------------------------------------------------------------------- */

/* Frees the cached rank-reversed communicator with its parent. */
static int rev_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  MPI_Comm *rc = attr;
  if (rc) {
    MPI_Comm_free(rc);
    free(rc);
  }
  return MPI_SUCCESS;
}

/* The rank-reversed duplicate of comm (rank r there is size-1-r here),
 * created once per communicator (collective the first time) and cached. */
static mpiad_result_t reversed_comm(MPI_Comm comm, MPI_Comm *out) {
  MPIAD_CHECK(ensure_init());
  if (rev_keyval == MPI_KEYVAL_INVALID)
    MPIAD_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                           rev_comm_delete, &rev_keyval, NULL));
  void *attr = NULL;
  int found = 0;
  MPIAD_CHECK_MPI(MPI_Comm_get_attr(comm, rev_keyval, &attr, &found));
  if (found && attr) {
    *out = *(MPI_Comm *)attr;
    return MPIAD_SUCCESS;
  }
  int rank, size;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  MPI_Comm *rc = malloc(sizeof *rc);
  if (!rc)
    return MPIAD_ERR_NOMEM;
  if (MPI_Comm_split(comm, 0, size - 1 - rank, rc) != MPI_SUCCESS) {
    free(rc);
    return MPIAD_ERR_MPI;
  }
  if (MPI_Comm_set_attr(comm, rev_keyval, rc) != MPI_SUCCESS) {
    MPI_Comm_free(rc);
    free(rc);
    return MPIAD_ERR_MPI;
  }
  *out = *rc;
  return MPIAD_SUCCESS;
}

static mpiad_result_t scan_rev_common(void *send_b, void *recv_b, int count,
                                      MPI_Datatype t, MPI_Comm comm,
                                      int exclusive) {
  int kind, rank, size;
  size_t esz;
  if (!type_kind(t, &kind, &esz) || count < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  MPI_Comm rc;
  MPIAD_CHECK(reversed_comm(comm, &rc));
  size_t n = (size_t)count;
  void *in, *out;
  if (!carve(n * esz, &in, n * esz, &out, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  /* Exscan: rank 0's output (and so its recv_b) is undefined: send zeros. */
  if (recv_b && !(exclusive && rank == 0))
    memcpy(in, recv_b, n * esz);
  else
    zero(in, 0, n, esz);
  if (count > 0) {
    if (exclusive)
      MPIAD_CHECK_MPI(MPI_Exscan(in, out, count, t, MPI_SUM, rc));
    else
      MPIAD_CHECK_MPI(MPI_Scan(in, out, count, t, MPI_SUM, rc));
  }
  /* The first rank of the reversed communicator gets no Exscan result. */
  if (exclusive && rank == size - 1)
    zero(out, 0, n, esz);
  if (send_b == MPI_IN_PLACE) {
    if (recv_b)
      memcpy(recv_b, out, n * esz);
  } else {
    if (!(exclusive && rank == 0))
      zero(recv_b, 0, n, esz);
    acc(send_b, out, n, kind);
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_scan_rev(void *send_b, void *recv_b, int count,
                              MPI_Datatype t, MPI_Comm comm) {
  return scan_rev_common(send_b, recv_b, count, t, comm, 0);
}

mpiad_result_t mpiad_exscan_rev(void *send_b, void *recv_b, int count,
                                MPI_Datatype t, MPI_Comm comm) {
  return scan_rev_common(send_b, recv_b, count, t, comm, 1);
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

/* The adjoint message of each transfer travels with a tag made from the
 * user's tag and the transfer's number in its stream (requests.h), so that
 * blocking and non-blocking transfers match whatever order they complete in. */

/* The basic type and element count of a point-to-point buffer (count items
 * of t, t maybe derived) in x; *lay: its layout (NULL: contiguous). */
static int p2p_describe(MPI_Datatype t, int count, mpiad_xfer *x,
                        mpiad_impl_layout **lay) {
  if (mpiad_impl_p2p_layout(t, count, INT_MAX, &x->kind, &x->esz, lay,
                            &x->type, &x->count) != MPIAD_P2P_OK)
    return 0;
  x->utype = t;
  x->derived = *lay != NULL;
  return 1;
}

static mpiad_result_t send_fwd_common(const void *buf, int count,
                                      MPI_Datatype t, int dest, int tag,
                                      MPI_Comm comm, int sync) {
  mpiad_xfer x = {0};
  mpiad_impl_layout *l;
  if (!p2p_describe(t, count, &x, &l))
    return MPIAD_ERR_ARG;
  if (sync)
    MPIAD_CHECK_MPI(MPI_Ssend(buf, count, t, dest, tag, comm));
  else
    MPIAD_CHECK_MPI(MPI_Send(buf, count, t, dest, tag, comm));
  x.peer = dest;
  x.tag = tag;
  x.comm = comm;
  mpiad_impl_record_blocking_send(&x);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_send_fwd(const void *buf, int count, MPI_Datatype t,
                              int dest, int tag, MPI_Comm comm) {
  return send_fwd_common(buf, count, t, dest, tag, comm, 0);
}

mpiad_result_t mpiad_ssend_fwd(const void *buf, int count, MPI_Datatype t,
                               int dest, int tag, MPI_Comm comm) {
  return send_fwd_common(buf, count, t, dest, tag, comm, 1);
}

mpiad_result_t mpiad_send_rev(void *send_b, int count, MPI_Datatype t, int dest,
                              int tag, MPI_Comm comm) {
  mpiad_xfer d = {0};
  mpiad_impl_layout *l;
  (void)dest;
  (void)tag;
  (void)comm; /* recorded */
  if (!p2p_describe(t, count, &d, &l))
    return MPIAD_ERR_ARG;
  mpiad_xfer x;
  mpiad_impl_pop_blocking(XFER_SEND, &x);
  if (x.peer == MPI_PROC_NULL)
    return MPIAD_SUCCESS;
  void *g;
  if (!carve((size_t)x.count * x.esz, &g, 0, NULL, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  MPIAD_CHECK_MPI(MPI_Recv(g, x.count, x.type, x.peer,
                           mpiad_impl_adjoint_tag(&x), x.comm,
                           MPI_STATUS_IGNORE));
  mpiad_impl_lacc(send_b, g, l, (size_t)x.count, x.kind);
  return MPIAD_SUCCESS;
}

/* Records what the reverse of a receive needs: the actual source, the actual
 * tag, the number of elements received and the message's number. */
static mpiad_result_t record_recv(const MPI_Status *s, MPI_Datatype t,
                                  int count, MPI_Comm comm) {
  mpiad_xfer x = {0};
  mpiad_impl_layout *l;
  if (!p2p_describe(t, count, &x, &l))
    return MPIAD_ERR_ARG;
  x.comm = comm;
  mpiad_impl_record_blocking_recv(&x, s);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_recv_fwd(void *buf, int count, MPI_Datatype t, int source,
                              int tag, MPI_Comm comm, MPI_Status *status) {
  mpiad_xfer d = {0};
  mpiad_impl_layout *l;
  if (!p2p_describe(t, count, &d, &l))
    return MPIAD_ERR_ARG;
  MPI_Status s;
  MPIAD_CHECK_MPI(MPI_Recv(buf, count, t, source, tag, comm, &s));
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  return record_recv(&s, t, count, comm);
}

/* The adjoint of a received message, contiguous: recv_b's first x->count
 * elements through l, or zeros where recv_b is NULL, in scratch region z. */
static const void *adjoint_of_received(const void *recv_b,
                                       const mpiad_impl_layout *l,
                                       const mpiad_xfer *x, void *z) {
  size_t n = (size_t)x->count;
  if (!recv_b) {
    zero(z, 0, n, x->esz);
    return z;
  }
  if (!l)
    return recv_b;
  mpiad_impl_lgather(z, recv_b, l, n, x->esz);
  return z;
}

/* Sends the adjoint of a received message (recv_b through l; NULL: zeros)
 * back to where it came from; zeroes recv_b. */
static mpiad_result_t send_back(void *recv_b, const mpiad_impl_layout *l,
                                const mpiad_xfer *x) {
  if (x->peer == MPI_PROC_NULL)
    return MPIAD_SUCCESS; /* nothing was received */
  void *z;
  if (!carve((size_t)x->count * x->esz, &z, 0, NULL, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = adjoint_of_received(recv_b, l, x, z);
  MPIAD_CHECK_MPI(MPI_Send(src, x->count, x->type, x->peer,
                           mpiad_impl_adjoint_tag(x), x->comm));
  mpiad_impl_lzero(recv_b, l, (size_t)x->count, x->esz);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_recv_rev(void *recv_b, int count, MPI_Datatype t,
                              MPI_Comm comm) {
  mpiad_xfer d = {0};
  mpiad_impl_layout *l;
  (void)comm; /* recorded */
  if (!p2p_describe(t, count, &d, &l))
    return MPIAD_ERR_ARG;
  mpiad_xfer x;
  mpiad_impl_pop_blocking(XFER_RECV, &x);
  return send_back(recv_b, l, &x);
}

mpiad_result_t mpiad_sendrecv_fwd(const void *sendbuf, int sendcount,
                                  MPI_Datatype st_, int dest, int sendtag,
                                  void *recvbuf, int recvcount, MPI_Datatype rt,
                                  int source, int recvtag, MPI_Comm comm,
                                  MPI_Status *status) {
  mpiad_xfer x = {0}, d = {0};
  mpiad_impl_layout *ls, *lr;
  if (!p2p_describe(st_, sendcount, &x, &ls) ||
      !p2p_describe(rt, recvcount, &d, &lr))
    return MPIAD_ERR_ARG;
  MPI_Status s;
  MPIAD_CHECK_MPI(MPI_Sendrecv(sendbuf, sendcount, st_, dest, sendtag, recvbuf,
                               recvcount, rt, source, recvtag, comm, &s));
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  x.peer = dest;
  x.tag = sendtag;
  x.comm = comm;
  mpiad_impl_record_blocking_send(&x);
  return record_recv(&s, rt, recvcount, comm);
}

/* The reverse of a Sendrecv-like exchange: sends the adjoint of what was
 * received (rx) back while receiving the adjoint of what was sent (sx) into
 * G. */
static mpiad_result_t exchange_back(const void *src, const mpiad_xfer *rx,
                                    void *G, const mpiad_xfer *sx) {
  int rtag = rx->peer == MPI_PROC_NULL ? 0 : mpiad_impl_adjoint_tag(rx);
  int stag = sx->peer == MPI_PROC_NULL ? 0 : mpiad_impl_adjoint_tag(sx);
  MPIAD_CHECK_MPI(MPI_Sendrecv(src, rx->count, rx->type, rx->peer, rtag, G,
                               sx->count, sx->type, sx->peer, stag, rx->comm,
                               MPI_STATUS_IGNORE));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_sendrecv_rev(void *send_b, int sendcount, MPI_Datatype st_,
                                  int dest, int sendtag, void *recv_b,
                                  int recvcount, MPI_Datatype rt, int recvtag,
                                  MPI_Comm comm) {
  mpiad_xfer ds = {0}, dr = {0};
  mpiad_impl_layout *ls, *lr;
  (void)dest;
  (void)sendtag;
  (void)recvtag;
  (void)comm; /* recorded */
  if (!p2p_describe(st_, sendcount, &ds, &ls) ||
      !p2p_describe(rt, recvcount, &dr, &lr))
    return MPIAD_ERR_ARG;
  mpiad_xfer rx, sx;
  mpiad_impl_pop_blocking(XFER_RECV, &rx);
  mpiad_impl_pop_blocking(XFER_SEND, &sx);
  size_t n = (size_t)rx.count;
  void *G, *z;
  if (!carve((size_t)sx.count * sx.esz, &G,
             !recv_b || lr ? n * rx.esz : 0, &z, 0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = adjoint_of_received(recv_b, lr, &rx, z);
  mpiad_result_t r = exchange_back(src, &rx, G, &sx);
  if (r != MPIAD_SUCCESS)
    return r;
  mpiad_impl_lzero(recv_b, lr, n, rx.esz);
  if (sx.peer != MPI_PROC_NULL)
    mpiad_impl_lacc(send_b, G, ls, (size_t)sx.count, sx.kind);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_sendrecv_replace_fwd(void *buf, int count, MPI_Datatype t,
                                          int dest, int sendtag, int source,
                                          int recvtag, MPI_Comm comm,
                                          MPI_Status *status) {
  mpiad_xfer x = {0};
  mpiad_impl_layout *l;
  if (!p2p_describe(t, count, &x, &l))
    return MPIAD_ERR_ARG;
  MPI_Status s;
  MPIAD_CHECK_MPI(MPI_Sendrecv_replace(buf, count, t, dest, sendtag, source,
                                       recvtag, comm, &s));
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  x.peer = dest;
  x.tag = sendtag;
  x.comm = comm;
  mpiad_impl_record_blocking_send(&x);
  return record_recv(&s, t, count, comm);
}

mpiad_result_t mpiad_sendrecv_replace_rev(void *buf_b, int count,
                                          MPI_Datatype t, int dest, int sendtag,
                                          int recvtag, MPI_Comm comm) {
  mpiad_xfer d = {0};
  mpiad_impl_layout *l;
  (void)dest;
  (void)sendtag;
  (void)recvtag;
  (void)comm; /* recorded */
  if (!p2p_describe(t, count, &d, &l))
    return MPIAD_ERR_ARG;
  mpiad_xfer rx, sx;
  mpiad_impl_pop_blocking(XFER_RECV, &rx);
  mpiad_impl_pop_blocking(XFER_SEND, &sx);
  size_t n = (size_t)rx.count;
  if (buf_b && rx.count == d.count && rx.peer != MPI_PROC_NULL &&
      sx.peer != MPI_PROC_NULL) {
    /* The usual case: the whole buffer was received and sent (through the
     * program's datatype; the peers use the basic type, which matches). */
    MPIAD_CHECK_MPI(MPI_Sendrecv_replace(
        buf_b, count, t, rx.peer, mpiad_impl_adjoint_tag(&rx), sx.peer,
        mpiad_impl_adjoint_tag(&sx), rx.comm, MPI_STATUS_IGNORE));
    return MPIAD_SUCCESS;
  }
  /* Elements [n, count) kept their value in the primal, so their adjoint
   * flows through; [0, n) were overwritten by the message. */
  void *G, *z;
  if (!carve((size_t)sx.count * sx.esz, &G, !buf_b || l ? n * rx.esz : 0, &z,
             0, NULL, 0, NULL))
    return MPIAD_ERR_NOMEM;
  const void *src = adjoint_of_received(buf_b, l, &rx, z);
  mpiad_result_t r = exchange_back(src, &rx, G, &sx);
  if (r != MPIAD_SUCCESS)
    return r;
  mpiad_impl_lzero(buf_b, l, n, rx.esz);
  if (sx.peer != MPI_PROC_NULL)
    mpiad_impl_lacc(buf_b, G, l, (size_t)sx.count, sx.kind);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Gather, Scatter, Allgather, Alltoall with derived datatypes               */
/* ------------------------------------------------------------------------- */

/* The adjoint of `count` items of a datatype at `user`, as a contiguous
 * array of their elements (`flat`) that the contiguous helpers work on.  A
 * receive buffer's (`input` 0) is a copy, written back by unstage: MPI
 * forbids a receive layout to name an element twice.  A send buffer's
 * (`input` 1) starts at zero and is added back, so that an element a send
 * layout names twice gets both adjoints.  A NULL or MPI_IN_PLACE buffer, or
 * one that is not significant on this rank, stays as it is. */
typedef struct {
  void *user, *flat;
  mpiad_impl_layout *lay;
  size_t n, esz;
  int kind, input;
} staged;

static int stage(staged *s, void *user, int count, MPI_Datatype t,
                 int significant, int input, MPI_Datatype *base) {
  s->user = user;
  s->flat = NULL;
  s->input = input;
  if (count < 0 || !mpiad_impl_type_layout(t, &s->kind, &s->esz, &s->lay))
    return 0;
  s->n = mpiad_impl_layout_elems(s->lay, count);
  if (s->n > INT_MAX)
    return 0;
  *base = mpiad_impl_layout_base(s->lay, t);
  if (!s->lay || !significant || !user || user == MPI_IN_PLACE)
    return 1;
  s->flat = malloc(s->n * s->esz + 1);
  if (!s->flat)
    return 0;
  if (input)
    zero(s->flat, 0, s->n, s->esz);
  else
    mpiad_impl_lgather(s->flat, user, s->lay, s->n, s->esz);
  return 1;
}

static void *staged_buf(const staged *s) { return s->flat ? s->flat : s->user; }

static void unstage(staged *s) {
  if (s->flat) {
    if (s->input)
      mpiad_impl_lacc(s->user, s->flat, s->lay, s->n, s->kind);
    else
      mpiad_impl_lscatter(s->user, s->flat, s->lay, s->n, s->esz);
    free(s->flat);
  }
}

/* The two buffers of a rooted or all-to-all collective, staged; *per is the
 * number of elements per rank (the same on both sides, as MPI requires). */
static mpiad_result_t stage_pair(staged *ss, void *send_b, int scount,
                                 MPI_Datatype st_, int s_sig, staged *rs,
                                 void *recv_b, int rcount, MPI_Datatype rt,
                                 int r_sig, MPI_Datatype *base) {
  MPI_Datatype sbase, rbase;
  if (!stage(ss, send_b, scount, st_, s_sig, 1, &sbase))
    return MPIAD_ERR_ARG;
  if (!stage(rs, recv_b, rcount, rt, r_sig, 0, &rbase)) {
    free(ss->flat);
    return MPIAD_ERR_ARG;
  }
  if (sbase != rbase && send_b != MPI_IN_PLACE && recv_b != MPI_IN_PLACE) {
    free(ss->flat);
    free(rs->flat);
    return MPIAD_ERR_ARG;
  }
  *base = recv_b == MPI_IN_PLACE ? sbase : rbase;
  return MPIAD_SUCCESS;
}

static mpiad_result_t finish_pair(mpiad_result_t r, staged *ss, staged *rs) {
  unstage(ss);
  unstage(rs);
  return r;
}

/* Elements per item of a datatype (for per-rank counts of a staged buffer). */
static int elems_of(MPI_Datatype t, int count) {
  int kind;
  size_t esz;
  mpiad_impl_layout *l;
  if (!mpiad_impl_type_layout(t, &kind, &esz, &l))
    return -1;
  size_t n = mpiad_impl_layout_elems(l, count);
  return n > INT_MAX ? -1 : (int)n;
}

mpiad_result_t mpiad_allgather_rev_typed(void *send_b, int sendcount,
                                         MPI_Datatype sendtype, void *recv_b,
                                         int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm comm, int partial) {
  int size;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  staged ss, rs;
  MPI_Datatype base;
  mpiad_result_t r =
      stage_pair(&ss, send_b, sendcount, sendtype, 1, &rs, recv_b,
                 recvcount * size, recvtype, 1, &base);
  if (r != MPIAD_SUCCESS)
    return r;
  int per = elems_of(recvtype, recvcount);
  return finish_pair(
      mpiad_allgather_rev(staged_buf(&ss),
                          send_b == MPI_IN_PLACE ? per : (int)ss.n,
                          staged_buf(&rs), per, base, comm, partial),
      &ss, &rs);
}

mpiad_result_t mpiad_gather_rev_typed(void *send_b, int sendcount,
                                      MPI_Datatype sendtype, void *recv_b,
                                      int recvcount, MPI_Datatype recvtype,
                                      int root, MPI_Comm comm) {
  int rank, size;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  staged ss, rs;
  MPI_Datatype base;
  mpiad_result_t r = stage_pair(&ss, send_b, sendcount, sendtype, 1, &rs,
                                recv_b, is_root ? recvcount * size : 0,
                                recvtype, is_root, &base);
  if (r != MPIAD_SUCCESS)
    return r;
  int per = is_root ? elems_of(recvtype, recvcount) : 0;
  return finish_pair(
      mpiad_gather_rev(staged_buf(&ss),
                       send_b == MPI_IN_PLACE ? per : (int)ss.n,
                       staged_buf(&rs), per, base, root, comm),
      &ss, &rs);
}

mpiad_result_t mpiad_scatter_rev_typed(void *send_b, int sendcount,
                                       MPI_Datatype sendtype, void *recv_b,
                                       int recvcount, MPI_Datatype recvtype,
                                       int root, MPI_Comm comm) {
  int rank, size;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  staged ss, rs;
  MPI_Datatype base;
  mpiad_result_t r = stage_pair(&ss, send_b, is_root ? sendcount * size : 0,
                                sendtype, is_root, &rs, recv_b, recvcount,
                                recvtype, 1, &base);
  if (r != MPIAD_SUCCESS)
    return r;
  int per = is_root ? elems_of(sendtype, sendcount) : 0;
  return finish_pair(
      mpiad_scatter_rev(staged_buf(&ss), per, staged_buf(&rs),
                        recv_b == MPI_IN_PLACE ? per : (int)rs.n, base, root,
                        comm),
      &ss, &rs);
}

mpiad_result_t mpiad_alltoall_rev_typed(void *send_b, int sendcount,
                                        MPI_Datatype sendtype, void *recv_b,
                                        int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  int size;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  staged ss, rs;
  MPI_Datatype base;
  mpiad_result_t r =
      stage_pair(&ss, send_b, sendcount * size, sendtype, 1, &rs, recv_b,
                 recvcount * size, recvtype, 1, &base);
  if (r != MPIAD_SUCCESS)
    return r;
  int per = elems_of(recvtype, recvcount);
  return finish_pair(mpiad_alltoall_rev(staged_buf(&ss),
                                        send_b == MPI_IN_PLACE
                                            ? per
                                            : elems_of(sendtype, sendcount),
                                        staged_buf(&rs), per, base, comm),
                     &ss, &rs);
}

/* The v collectives with derived datatypes: a buffer described by counts and
 * displacements (in items of its datatype) is staged over the span of items
 * it covers, and the counts and displacements are scaled to elements. */

/* The items [0, end) that counts/displs (n blocks) cover. */
static int span_of(const int *counts, const int *displs, int n) {
  int end = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0 && displs[i] + counts[i] > end)
      end = displs[i] + counts[i];
  return end;
}

/* a[0..n) times f, in a new array (NULL if memory ran out or overflow). */
static int *scaled(const int *a, int n, int f) {
  int *s = malloc((size_t)(n + 1) * sizeof *s);
  if (!s)
    return NULL;
  for (int i = 0; i < n; ++i) {
    long long v = (long long)a[i] * f;
    if (v > INT_MAX || v < INT_MIN) {
      free(s);
      return NULL;
    }
    s[i] = (int)v;
  }
  return s;
}

mpiad_result_t mpiad_allgatherv_rev_typed(void *send_b, int sendcount,
                                          MPI_Datatype sendtype, void *recv_b,
                                          const int *recvcounts,
                                          const int *displs,
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          int partial) {
  int size;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  if (!recvcounts || !displs)
    return MPIAD_ERR_ARG;
  staged ss, rs;
  MPI_Datatype base;
  MPIAD_CHECK(stage_pair(&ss, send_b, sendcount, sendtype, 1, &rs, recv_b,
                         span_of(recvcounts, displs, size), recvtype, 1,
                         &base));
  int f = elems_of(recvtype, 1);
  int *c = scaled(recvcounts, size, f), *d = scaled(displs, size, f);
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (c && d) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    r = mpiad_allgatherv_rev(staged_buf(&ss),
                             send_b == MPI_IN_PLACE ? c[rank] : (int)ss.n,
                             staged_buf(&rs), c, d, base, comm, partial);
  }
  free(c);
  free(d);
  return finish_pair(r, &ss, &rs);
}

mpiad_result_t mpiad_gatherv_rev_typed(void *send_b, int sendcount,
                                       MPI_Datatype sendtype, void *recv_b,
                                       const int *recvcounts, const int *displs,
                                       MPI_Datatype recvtype, int root,
                                       MPI_Comm comm) {
  int rank, size;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  if (is_root && (!recvcounts || !displs))
    return MPIAD_ERR_ARG;
  staged ss, rs;
  MPI_Datatype base;
  MPIAD_CHECK(stage_pair(&ss, send_b, sendcount, sendtype, 1, &rs, recv_b,
                         is_root ? span_of(recvcounts, displs, size) : 0,
                         recvtype, is_root, &base));
  int f = elems_of(recvtype, 1);
  int *c = is_root ? scaled(recvcounts, size, f) : NULL;
  int *d = is_root ? scaled(displs, size, f) : NULL;
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (!is_root || (c && d))
    r = mpiad_gatherv_rev(staged_buf(&ss),
                          send_b == MPI_IN_PLACE ? c[rank] : (int)ss.n,
                          staged_buf(&rs), c, d, base, root, comm);
  free(c);
  free(d);
  return finish_pair(r, &ss, &rs);
}

mpiad_result_t mpiad_scatterv_rev_typed(void *send_b, const int *sendcounts,
                                        const int *displs,
                                        MPI_Datatype sendtype, void *recv_b,
                                        int recvcount, MPI_Datatype recvtype,
                                        int root, MPI_Comm comm) {
  int rank, size;
  MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  int is_root = rank == root;
  if (is_root && (!sendcounts || !displs))
    return MPIAD_ERR_ARG;
  staged ss, rs;
  MPI_Datatype base;
  MPIAD_CHECK(stage_pair(&ss, send_b,
                         is_root ? span_of(sendcounts, displs, size) : 0,
                         sendtype, is_root, &rs, recv_b, recvcount, recvtype, 1,
                         &base));
  int f = elems_of(sendtype, 1);
  int *c = is_root ? scaled(sendcounts, size, f) : NULL;
  int *d = is_root ? scaled(displs, size, f) : NULL;
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (!is_root || (c && d))
    r = mpiad_scatterv_rev(staged_buf(&ss), c, d, staged_buf(&rs),
                           recv_b == MPI_IN_PLACE ? c[rank] : (int)rs.n, base,
                           root, comm);
  free(c);
  free(d);
  return finish_pair(r, &ss, &rs);
}

mpiad_result_t mpiad_alltoallv_rev_typed(
    void *send_b, const int *sendcounts, const int *sdispls,
    MPI_Datatype sendtype, void *recv_b, const int *recvcounts,
    const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  int size;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  if (!recvcounts || !rdispls ||
      (send_b != MPI_IN_PLACE && (!sendcounts || !sdispls)))
    return MPIAD_ERR_ARG;
  int in_place = send_b == MPI_IN_PLACE;
  staged ss, rs;
  MPI_Datatype base;
  MPIAD_CHECK(stage_pair(&ss, send_b,
                         in_place ? 0 : span_of(sendcounts, sdispls, size),
                         sendtype, 1, &rs, recv_b,
                         span_of(recvcounts, rdispls, size), recvtype, 1,
                         &base));
  int fs = in_place ? 1 : elems_of(sendtype, 1), fr = elems_of(recvtype, 1);
  int *sc = in_place ? NULL : scaled(sendcounts, size, fs);
  int *sd = in_place ? NULL : scaled(sdispls, size, fs);
  int *rc = scaled(recvcounts, size, fr), *rd = scaled(rdispls, size, fr);
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if ((in_place || (sc && sd)) && rc && rd)
    r = mpiad_alltoallv_rev(staged_buf(&ss), sc, sd, staged_buf(&rs), rc, rd,
                            base, comm);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  return finish_pair(r, &ss, &rs);
}

/* ------------------------------------------------------------------------- */
/* Alltoallw                                                                 */
/* ------------------------------------------------------------------------- */

/* Per peer, the elements of counts[i] items of types[i] at byte offset
 * displs[i] of buf, packed into flat at offs[i] (input: zeros, added back by
 * wblocks_out; else a copy, written back).  Returns the total, or -1. */
static long long wblocks_in(void *buf, const int *counts, const int *displs,
                            const MPI_Datatype *types, int n, int input,
                            void *flat, int *ns, int *offs, int *kind,
                            size_t *esz) {
  long long total = 0;
  for (int i = 0; i < n; ++i) {
    mpiad_impl_layout *l;
    int k;
    size_t e;
    if (counts[i] < 0 || !mpiad_impl_type_layout(types[i], &k, &e, &l))
      return -1;
    if (total > 0 && (k != *kind || e != *esz))
      return -1; /* one element type across the blocks */
    *kind = k;
    *esz = e;
    size_t m = mpiad_impl_layout_elems(l, counts[i]);
    if (displs[i] % (int)e != 0 || total + (long long)m > INT_MAX)
      return -1;
    ns[i] = (int)m;
    offs[i] = (int)total;
    if (flat) {
      void *at_ = (unsigned char *)flat + (size_t)total * e;
      if (input || !buf)
        zero(at_, 0, m, e);
      else
        mpiad_impl_lgather(at_, (unsigned char *)buf + displs[i], l, m, e);
    }
    total += (long long)m;
  }
  return total;
}

static void wblocks_out(void *buf, const int *counts, const int *displs,
                        const MPI_Datatype *types, int n, int input,
                        const void *flat, const int *offs) {
  if (!buf)
    return;
  for (int i = 0; i < n; ++i) {
    mpiad_impl_layout *l;
    int k;
    size_t e;
    mpiad_impl_type_layout(types[i], &k, &e, &l);
    size_t m = mpiad_impl_layout_elems(l, counts[i]);
    const void *src = (const unsigned char *)flat + (size_t)offs[i] * e;
    void *dst = (unsigned char *)buf + displs[i];
    if (input)
      mpiad_impl_lacc(dst, src, l, m, k);
    else
      mpiad_impl_lscatter(dst, src, l, m, e);
  }
}

mpiad_result_t mpiad_alltoallw_rev(void *send_b, const int *sendcounts,
                                   const int *sdispls,
                                   const MPI_Datatype *sendtypes, void *recv_b,
                                   const int *recvcounts, const int *rdispls,
                                   const MPI_Datatype *recvtypes,
                                   MPI_Comm comm) {
  int size;
  MPIAD_CHECK_MPI(MPI_Comm_size(comm, &size));
  if (send_b == MPI_IN_PLACE || !sendcounts || !sdispls || !sendtypes ||
      !recvcounts || !rdispls || !recvtypes)
    return MPIAD_ERR_ARG;
  int *sn = malloc(4 * (size_t)(size + 1) * sizeof *sn);
  if (!sn)
    return MPIAD_ERR_NOMEM;
  int *so = sn + size + 1, *rn = so + size + 1, *ro = rn + size + 1;
  int skind = 0, rkind = 0;
  size_t sesz = 0, resz = 0;
  long long st = wblocks_in(NULL, sendcounts, sdispls, sendtypes, size, 1,
                            NULL, sn, so, &skind, &sesz);
  long long rt = wblocks_in(NULL, recvcounts, rdispls, recvtypes, size, 0,
                            NULL, rn, ro, &rkind, &resz);
  mpiad_result_t r = MPIAD_ERR_ARG;
  void *sflat = NULL, *rflat = NULL;
  if (st >= 0 && rt >= 0 && (st == 0 || rt == 0 || sesz == resz)) {
    size_t esz = sesz ? sesz : resz ? resz : sizeof(double);
    int kind = sesz ? skind : rkind;
    sflat = malloc((size_t)st * esz + 1);
    rflat = malloc((size_t)rt * esz + 1);
    r = MPIAD_ERR_NOMEM;
    if (sflat && rflat) {
      wblocks_in(send_b, sendcounts, sdispls, sendtypes, size, 1, sflat, sn,
                 so, &skind, &sesz);
      wblocks_in(recv_b, recvcounts, rdispls, recvtypes, size, 0, rflat, rn,
                 ro, &rkind, &resz);
      r = mpiad_alltoallv_rev(sflat, sn, so, rflat, rn, ro,
                              kind == K_F64 ? MPI_DOUBLE : MPI_FLOAT, comm);
      if (r == MPIAD_SUCCESS) {
        wblocks_out(send_b, sendcounts, sdispls, sendtypes, size, 1, sflat,
                    so);
        wblocks_out(recv_b, recvcounts, rdispls, recvtypes, size, 0, rflat,
                    ro);
      }
    }
  }
  free(rflat);
  free(sflat);
  free(sn);
  return r;
}

int mpiad_alltoallw_extent(const int *counts, const int *displs,
                           const MPI_Datatype *types, MPI_Comm comm) {
  int size = mpiad_comm_size(comm);
  long long end = 0;
  for (int i = 0; i < size; ++i) {
    MPI_Aint lb, ext, tlb, text;
    if (counts[i] <= 0)
      continue;
    MPI_Type_get_extent(types[i], &lb, &ext);
    MPI_Type_get_true_extent(types[i], &tlb, &text);
    long long hi = displs[i] + (long long)(counts[i] - 1) * ext + tlb + text;
    if (hi > end)
      end = hi;
  }
  return (int)((end + (long long)sizeof(double) - 1) / (long long)sizeof(double));
}
