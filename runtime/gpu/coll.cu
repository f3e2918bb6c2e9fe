/*
 * coll.cu - collectives and point-to-point on device buffers: the internal
 * forms (mpiad_gpu_impl_*, on a communicator state, one branch per path)
 * and the public mpiad_gpu_* calls, which check their arguments, find the
 * state and translate MPI_IN_PLACE.
 *
 * NCCL path: the NCCL call(s) on the state's stream, then
 * cudaStreamSynchronize and a check of NCCL's asynchronous error.
 * Staged MPI path: cudaMemcpyAsync to the pinned staging buffer, synchronise,
 * the MPI call on host memory, cudaMemcpyAsync back, synchronise.
 */
#include "internal.h"

#include <limits.h>

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------- */

/* Waits for the state's stream, then checks NCCL's asynchronous error. */
static mpiad_result_t finish(mpiad_gpu_state *s) {
  GPU_TRY_CUDA(cudaStreamSynchronize(s->stream));
  if (s->nccl_path) {
    ncclResult_t async = ncclSuccess;
    GPU_TRY_NCCL(ncclCommGetAsyncError(s->nccl, &async));
    GPU_TRY_NCCL(async);
  }
  return MPIAD_SUCCESS;
}

/* Device to staging (host) and back, on the state's stream. */
static mpiad_result_t d2h(mpiad_gpu_state *s, void *h, const void *d,
                          size_t bytes) {
  if (bytes > 0)
    GPU_TRY_CUDA(
        cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s->stream));
  return MPIAD_SUCCESS;
}

static mpiad_result_t h2d(mpiad_gpu_state *s, void *d, const void *h,
                          size_t bytes) {
  if (bytes > 0)
    GPU_TRY_CUDA(
        cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s->stream));
  return MPIAD_SUCCESS;
}

/* The staged path passes counts to MPI as int. */
static mpiad_result_t int_count(size_t n, int *out) {
  if (n > (size_t)INT_MAX)
    GPU_ARG_ERROR("mpiad_gpu: %zu elements do not fit an MPI count", n);
  *out = (int)n;
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Internal collectives                                                      */
/* ------------------------------------------------------------------------- */

mpiad_result_t mpiad_gpu_impl_allreduce(mpiad_gpu_state *s, const void *send,
                                        void *recv, size_t n, int e, int op) {
  if (n == 0)
    return MPIAD_SUCCESS;
  if (s->nccl_path) {
    GPU_TRY_NCCL(ncclAllReduce(send, recv, n, elem_nccl(e), redop_nccl(op),
                               s->nccl, s->stream));
    return finish(s);
  }
  size_t esz = elem_size(e);
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(n * esz, &h, 0, NULL));
  GPU_TRY(d2h(s, h, send, n * esz));
  GPU_TRY(finish(s));
  /* One call unless the count does not fit an int. */
  for (size_t done = 0; done < n;) {
    int c = n - done > (size_t)INT_MAX ? INT_MAX : (int)(n - done);
    GPU_TRY_MPI(MPI_Allreduce(MPI_IN_PLACE, elem_at(h, done, e), c, elem_mpi(e),
                              redop_mpi(op), s->comm));
    done += (size_t)c;
  }
  GPU_TRY(h2d(s, recv, h, n * esz));
  return finish(s);
}

mpiad_result_t mpiad_gpu_impl_reduce(mpiad_gpu_state *s, const void *send,
                                     void *recv, size_t n, int e, int op,
                                     int root) {
  if (n == 0)
    return MPIAD_SUCCESS;
  int is_root = s->rank == root;
  if (s->nccl_path) {
    GPU_TRY_NCCL(ncclReduce(send, is_root ? recv : NULL, n, elem_nccl(e),
                            redop_nccl(op), root, s->nccl, s->stream));
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e);
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(bytes, &h, 0, NULL));
  GPU_TRY(d2h(s, h, send, bytes));
  GPU_TRY(finish(s));
  if (is_root) {
    GPU_TRY_MPI(MPI_Reduce(MPI_IN_PLACE, h, c, elem_mpi(e), redop_mpi(op), root,
                           s->comm));
    GPU_TRY(h2d(s, recv, h, bytes));
  } else {
    GPU_TRY_MPI(
        MPI_Reduce(h, NULL, c, elem_mpi(e), redop_mpi(op), root, s->comm));
  }
  return finish(s);
}

mpiad_result_t mpiad_gpu_impl_bcast(mpiad_gpu_state *s, void *buf, size_t n,
                                    int e, int root) {
  if (n == 0)
    return MPIAD_SUCCESS;
  if (s->nccl_path) {
    GPU_TRY_NCCL(
        ncclBroadcast(buf, buf, n, elem_nccl(e), root, s->nccl, s->stream));
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e);
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(bytes, &h, 0, NULL));
  if (s->rank == root) {
    GPU_TRY(d2h(s, h, buf, bytes));
    GPU_TRY(finish(s));
  }
  GPU_TRY_MPI(MPI_Bcast(h, c, elem_mpi(e), root, s->comm));
  if (s->rank != root) {
    GPU_TRY(h2d(s, buf, h, bytes));
    GPU_TRY(finish(s));
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_allgather(mpiad_gpu_state *s, const void *send,
                                        void *recv, size_t n, int e) {
  if (n == 0)
    return MPIAD_SUCCESS;
  if (s->nccl_path) {
    GPU_TRY_NCCL(
        ncclAllGather(send, recv, n, elem_nccl(e), s->nccl, s->stream));
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e), total = bytes * (size_t)s->size;
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(total, &h, 0, NULL));
  GPU_TRY(d2h(s, elem_at(h, n * (size_t)s->rank, e), send, bytes));
  GPU_TRY(finish(s));
  GPU_TRY_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, h, c,
                            elem_mpi(e), s->comm));
  GPU_TRY(h2d(s, recv, h, total));
  return finish(s);
}

mpiad_result_t mpiad_gpu_impl_reduce_scatter(mpiad_gpu_state *s,
                                             const void *send, void *recv,
                                             size_t n, int e, int op) {
  if (n == 0)
    return MPIAD_SUCCESS;
  size_t bytes = n * elem_size(e);
  if (s->nccl_path) {
    if (send == recv) {
      /* NCCL's in place puts block r at recv + r * n; MPI's wants it first
       * (the blocks do not overlap for r >= 1). */
      void *mine = elem_at(recv, n * (size_t)s->rank, e);
      GPU_TRY_NCCL(ncclReduceScatter(recv, mine, n, elem_nccl(e),
                                     redop_nccl(op), s->nccl, s->stream));
      GPU_TRY(mpiad_gpu_impl_copy(recv, mine, n, e, s->stream));
    } else {
      GPU_TRY_NCCL(ncclReduceScatter(send, recv, n, elem_nccl(e),
                                     redop_nccl(op), s->nccl, s->stream));
    }
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(bytes * (size_t)s->size, &h, 0, NULL));
  GPU_TRY(d2h(s, h, send, bytes * (size_t)s->size));
  GPU_TRY(finish(s));
  GPU_TRY_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, h, c, elem_mpi(e),
                                       redop_mpi(op), s->comm));
  GPU_TRY(h2d(s, recv, h, bytes));
  return finish(s);
}

mpiad_result_t mpiad_gpu_impl_alltoall(mpiad_gpu_state *s, const void *send,
                                       void *recv, size_t n, int e) {
  if (n == 0)
    return MPIAD_SUCCESS;
  size_t total = n * (size_t)s->size;
  if (s->nccl_path) {
    const void *src = send;
    if (send == recv) { /* in place: send from a copy */
      void *tmp;
      GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_COLL, total * elem_size(e), &tmp, 0,
                                    NULL, 0, NULL, 0, NULL));
      GPU_TRY(mpiad_gpu_impl_copy(tmp, recv, total, e, s->stream));
      src = tmp;
    }
    size_t me = n * (size_t)s->rank;
    GPU_TRY(mpiad_gpu_impl_copy(elem_at(recv, me, e), elem_at(src, me, e), n, e,
                                s->stream));
    GPU_TRY_NCCL(ncclGroupStart());
    for (int i = 0; i < s->size; ++i) {
      if (i == s->rank)
        continue;
      size_t off = n * (size_t)i;
      GPU_TRY_NCCL(ncclSend(elem_at(src, off, e), n, elem_nccl(e), i, s->nccl,
                            s->stream));
      GPU_TRY_NCCL(ncclRecv(elem_at(recv, off, e), n, elem_nccl(e), i, s->nccl,
                            s->stream));
    }
    GPU_TRY_NCCL(ncclGroupEnd());
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = total * elem_size(e);
  void *hs, *hr;
  GPU_TRY(mpiad_gpu_impl_hcarve(bytes, &hs, bytes, &hr));
  GPU_TRY(d2h(s, hs, send, bytes));
  GPU_TRY(finish(s));
  GPU_TRY_MPI(MPI_Alltoall(hs, c, elem_mpi(e), hr, c, elem_mpi(e), s->comm));
  GPU_TRY(h2d(s, recv, hr, bytes));
  return finish(s);
}

mpiad_result_t mpiad_gpu_impl_gather(mpiad_gpu_state *s, const void *send,
                                     void *recv, size_t n, int e, int root) {
  if (n == 0)
    return MPIAD_SUCCESS;
  int is_root = s->rank == root;
  if (s->nccl_path) {
    if (is_root)
      GPU_TRY(mpiad_gpu_impl_copy(elem_at(recv, n * (size_t)root, e), send, n,
                                  e, s->stream));
    GPU_TRY_NCCL(ncclGroupStart());
    if (is_root) {
      for (int i = 0; i < s->size; ++i)
        if (i != root)
          GPU_TRY_NCCL(ncclRecv(elem_at(recv, n * (size_t)i, e), n,
                                elem_nccl(e), i, s->nccl, s->stream));
    } else {
      GPU_TRY_NCCL(ncclSend(send, n, elem_nccl(e), root, s->nccl, s->stream));
    }
    GPU_TRY_NCCL(ncclGroupEnd());
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e);
  void *hs, *hr;
  GPU_TRY(
      mpiad_gpu_impl_hcarve(bytes, &hs, is_root ? bytes * s->size : 0, &hr));
  GPU_TRY(d2h(s, hs, send, bytes));
  GPU_TRY(finish(s));
  GPU_TRY_MPI(MPI_Gather(hs, c, elem_mpi(e), is_root ? hr : NULL, c,
                         elem_mpi(e), root, s->comm));
  if (is_root) {
    GPU_TRY(h2d(s, recv, hr, bytes * (size_t)s->size));
    GPU_TRY(finish(s));
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_scatter(mpiad_gpu_state *s, const void *send,
                                      void *recv, size_t n, int e, int root) {
  if (n == 0)
    return MPIAD_SUCCESS;
  int is_root = s->rank == root;
  if (s->nccl_path) {
    if (is_root)
      GPU_TRY(mpiad_gpu_impl_copy(recv, elem_at(send, n * (size_t)root, e), n,
                                  e, s->stream));
    GPU_TRY_NCCL(ncclGroupStart());
    if (is_root) {
      for (int i = 0; i < s->size; ++i)
        if (i != root)
          GPU_TRY_NCCL(ncclSend(elem_at(send, n * (size_t)i, e), n,
                                elem_nccl(e), i, s->nccl, s->stream));
    } else {
      GPU_TRY_NCCL(ncclRecv(recv, n, elem_nccl(e), root, s->nccl, s->stream));
    }
    GPU_TRY_NCCL(ncclGroupEnd());
    return finish(s);
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e);
  void *hs, *hr;
  GPU_TRY(
      mpiad_gpu_impl_hcarve(is_root ? bytes * s->size : 0, &hs, bytes, &hr));
  if (is_root) {
    GPU_TRY(d2h(s, hs, send, bytes * (size_t)s->size));
    GPU_TRY(finish(s));
  }
  GPU_TRY_MPI(MPI_Scatter(is_root ? hs : NULL, c, elem_mpi(e), hr, c,
                          elem_mpi(e), root, s->comm));
  GPU_TRY(h2d(s, recv, hr, bytes));
  return finish(s);
}

/* NCCL path: the status MPI_Recv would give for n elements of kind e from
 * peer with tag (MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, 0
 * elements). */
static mpiad_result_t nccl_status(MPI_Status *status, int peer, int tag,
                                  size_t n, int e) {
  int c = 0;
  GPU_TRY(int_count(peer == MPI_PROC_NULL ? 0 : n, &c));
  status->MPI_SOURCE = peer;
  status->MPI_TAG = peer == MPI_PROC_NULL ? MPI_ANY_TAG : tag;
  status->MPI_ERROR = MPI_SUCCESS;
  GPU_TRY_MPI(MPI_Status_set_elements(status, elem_mpi(e), c));
  GPU_TRY_MPI(MPI_Status_set_cancelled(status, 0));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_send(mpiad_gpu_state *s, const void *buf,
                                   size_t n, int e, int peer, int tag,
                                   int adjoint) {
  if (peer == MPI_PROC_NULL)
    return MPIAD_SUCCESS;
  if (s->nccl_path) {
    if (n > 0) {
      GPU_TRY_NCCL(ncclSend(buf, n, elem_nccl(e), peer, s->nccl, s->stream));
      GPU_TRY(finish(s));
    }
    return MPIAD_SUCCESS;
  }
  int c = 0;
  GPU_TRY(int_count(n, &c));
  size_t bytes = n * elem_size(e);
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(bytes, &h, 0, NULL));
  GPU_TRY(d2h(s, h, buf, bytes));
  GPU_TRY(finish(s));
  GPU_TRY_MPI(
      MPI_Send(h, c, elem_mpi(e), peer, tag, adjoint ? s->adj : s->comm));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_recv(mpiad_gpu_state *s, void *buf, size_t n,
                                   int e, int peer, int tag, int adjoint,
                                   MPI_Status *status) {
  if (s->nccl_path) {
    if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
      GPU_ARG_ERROR("mpiad_gpu_recv: MPI_ANY_SOURCE and MPI_ANY_TAG need the "
                    "MPI path (NCCL has no wildcards): set MPIAD_GPU_COMM=mpi");
    if (peer != MPI_PROC_NULL && n > 0) {
      GPU_TRY_NCCL(ncclRecv(buf, n, elem_nccl(e), peer, s->nccl, s->stream));
      GPU_TRY(finish(s));
    }
    return nccl_status(status, peer, tag, n, e);
  }
  int c = 0, got = 0;
  GPU_TRY(int_count(n, &c));
  void *h;
  GPU_TRY(mpiad_gpu_impl_hcarve(n * elem_size(e), &h, 0, NULL));
  GPU_TRY_MPI(MPI_Recv(h, c, elem_mpi(e), peer, tag, adjoint ? s->adj : s->comm,
                       status));
  GPU_TRY_MPI(MPI_Get_count(status, elem_mpi(e), &got));
  if (got > 0) {
    GPU_TRY(h2d(s, buf, h, (size_t)got * elem_size(e)));
    GPU_TRY(finish(s));
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_sendrecv(mpiad_gpu_state *s, const void *send,
                                       size_t sn, int se, int dest, int stag,
                                       void *recv, size_t rn, int re,
                                       int source, int rtag, int adjoint,
                                       MPI_Status *status) {
  if (s->nccl_path) {
    if (source == MPI_ANY_SOURCE || rtag == MPI_ANY_TAG)
      GPU_ARG_ERROR("mpiad_gpu_sendrecv: MPI_ANY_SOURCE and MPI_ANY_TAG need "
                    "the MPI path (NCCL has no wildcards): set "
                    "MPIAD_GPU_COMM=mpi");
    int do_send = dest != MPI_PROC_NULL && sn > 0;
    int do_recv = source != MPI_PROC_NULL && rn > 0;
    if (dest == s->rank && source == s->rank) {
      /* With itself: a device copy (NCCL would need the matching receive in
       * the same group anyway). */
      if (sn != rn)
        GPU_ARG_ERROR("mpiad_gpu_sendrecv: NCCL path: an exchange with this "
                      "rank itself must send as many elements (%zu) as it "
                      "receives (%zu)",
                      sn, rn);
      if (se != re)
        GPU_ARG_ERROR("mpiad_gpu_sendrecv: an exchange with this rank itself "
                      "must send and receive the same datatype");
      GPU_TRY(mpiad_gpu_impl_copy(recv, send, rn, re, s->stream));
      GPU_TRY(finish(s));
      return nccl_status(status, source, rtag, rn, re);
    }
    if ((dest == s->rank) != (source == s->rank))
      GPU_ARG_ERROR("mpiad_gpu_sendrecv: NCCL path: a message to this rank "
                    "itself must be received by the same call (dest %d, "
                    "source %d, rank %d)",
                    dest, source, s->rank);
    const void *src = send;
    if (do_send && do_recv && send == recv) {
      /* Replace: NCCL may receive before it has sent everything. */
      void *tmp;
      GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_COLL, sn * elem_size(se), &tmp, 0,
                                    NULL, 0, NULL, 0, NULL));
      GPU_TRY(mpiad_gpu_impl_copy(tmp, send, sn, se, s->stream));
      src = tmp;
    }
    if (do_send || do_recv) {
      GPU_TRY_NCCL(ncclGroupStart());
      if (do_send)
        GPU_TRY_NCCL(
            ncclSend(src, sn, elem_nccl(se), dest, s->nccl, s->stream));
      if (do_recv)
        GPU_TRY_NCCL(
            ncclRecv(recv, rn, elem_nccl(re), source, s->nccl, s->stream));
      GPU_TRY_NCCL(ncclGroupEnd());
      GPU_TRY(finish(s));
    }
    return nccl_status(status, source, rtag, rn, re);
  }
  /* MPI checks the tags even for MPI_PROC_NULL (a recorded tag may be
   * MPI_ANY_TAG, from the status of a receive from MPI_PROC_NULL). */
  if (dest == MPI_PROC_NULL)
    stag = 0;
  if (source == MPI_PROC_NULL)
    rtag = 0;
  int sc = 0, rc = 0, got = 0;
  GPU_TRY(int_count(sn, &sc));
  GPU_TRY(int_count(rn, &rc));
  size_t sbytes = sn * elem_size(se);
  void *hs, *hr;
  GPU_TRY(mpiad_gpu_impl_hcarve(sbytes, &hs, rn * elem_size(re), &hr));
  if (dest != MPI_PROC_NULL && sbytes > 0) {
    GPU_TRY(d2h(s, hs, send, sbytes));
    GPU_TRY(finish(s));
  }
  GPU_TRY_MPI(MPI_Sendrecv(hs, sc, elem_mpi(se), dest, stag, hr, rc,
                           elem_mpi(re), source, rtag,
                           adjoint ? s->adj : s->comm, status));
  GPU_TRY_MPI(MPI_Get_count(status, elem_mpi(re), &got));
  if (got > 0 && got != MPI_UNDEFINED) {
    GPU_TRY(h2d(s, recv, hr, (size_t)got * elem_size(re)));
    GPU_TRY(finish(s));
  }
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Public calls                                                              */
/* ------------------------------------------------------------------------- */

/* Argument checks shared by the public calls; each returns MPIAD_ERR_ARG
 * with a message naming the function. */
static mpiad_result_t check_type(const char *fn, MPI_Datatype t, int *e) {
  if (!elem_of(t, e))
    GPU_ARG_ERROR("%s: datatype must be MPI_DOUBLE or MPI_FLOAT", fn);
  return MPIAD_SUCCESS;
}

static mpiad_result_t check_types(const char *fn, MPI_Datatype st,
                                  MPI_Datatype rt, int *e) {
  GPU_TRY(check_type(fn, rt, e));
  if (st != rt)
    GPU_ARG_ERROR("%s: the send and receive datatypes must be equal", fn);
  return MPIAD_SUCCESS;
}

static mpiad_result_t check_op(const char *fn, MPI_Op op, int *r) {
  if (!redop_of(op, r))
    GPU_ARG_ERROR("%s: op must be MPI_SUM, MPI_PROD, MPI_MAX or MPI_MIN", fn);
  return MPIAD_SUCCESS;
}

static mpiad_result_t check_count(const char *fn, int count) {
  if (count < 0)
    GPU_ARG_ERROR("%s: negative count %d", fn, count);
  return MPIAD_SUCCESS;
}

static mpiad_result_t check_ptr(const char *fn, const void *p, int count,
                                const char *name) {
  if (count > 0 && !p)
    GPU_ARG_ERROR("%s: %s is NULL", fn, name);
  return MPIAD_SUCCESS;
}

/* rank and size of comm, and a root in range. */
static mpiad_result_t check_root(const char *fn, MPI_Comm comm, int root,
                                 int *rank, int *size) {
  if (comm == MPI_COMM_NULL)
    GPU_ARG_ERROR("%s: MPI_COMM_NULL", fn);
  GPU_TRY_MPI(MPI_Comm_rank(comm, rank));
  GPU_TRY_MPI(MPI_Comm_size(comm, size));
  if (root < 0 || root >= *size)
    GPU_ARG_ERROR("%s: root %d is not a rank of the communicator", fn, root);
  return MPIAD_SUCCESS;
}

extern "C" mpiad_result_t mpiad_gpu_allreduce(const void *send, void *recv,
                                              int count, MPI_Datatype datatype,
                                              MPI_Op op, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_allreduce";
  int e = 0, r = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_op(fn, op, &r));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_ptr(fn, send, count, "send"));
  GPU_TRY(check_ptr(fn, recv, count, "recv"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_allreduce(s, send == MPI_IN_PLACE ? recv : send, recv,
                                  (size_t)count, e, r);
}

extern "C" mpiad_result_t mpiad_gpu_reduce(const void *send, void *recv,
                                           int count, MPI_Datatype datatype,
                                           MPI_Op op, int root, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce";
  int e = 0, r = 0, rank = 0, size = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_op(fn, op, &r));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_root(fn, comm, root, &rank, &size));
  GPU_TRY(check_ptr(fn, send, count, "send"));
  if (rank == root)
    GPU_TRY(check_ptr(fn, recv, count, "recv"));
  else if (send == MPI_IN_PLACE)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_reduce(s, send == MPI_IN_PLACE ? recv : send, recv,
                               (size_t)count, e, r, root);
}

extern "C" mpiad_result_t mpiad_gpu_bcast(void *buf, int count,
                                          MPI_Datatype datatype, int root,
                                          MPI_Comm comm) {
  const char *fn = "mpiad_gpu_bcast";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_root(fn, comm, root, &rank, &size));
  GPU_TRY(check_ptr(fn, buf, count, "buf"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_bcast(s, buf, (size_t)count, e, root);
}

extern "C" mpiad_result_t mpiad_gpu_allgather(const void *send, int sendcount,
                                              MPI_Datatype sendtype, void *recv,
                                              int recvcount,
                                              MPI_Datatype recvtype,
                                              MPI_Comm comm) {
  const char *fn = "mpiad_gpu_allgather";
  int e = 0;
  int in_place = send == MPI_IN_PLACE;
  GPU_TRY(check_types(fn, in_place ? recvtype : sendtype, recvtype, &e));
  GPU_TRY(check_count(fn, recvcount));
  if (!in_place && sendcount != recvcount)
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount, recvcount);
  GPU_TRY(check_ptr(fn, send, recvcount, "send"));
  GPU_TRY(check_ptr(fn, recv, recvcount, "recv"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)recvcount;
  return mpiad_gpu_impl_allgather(
      s, in_place ? elem_at(recv, n * (size_t)s->rank, e) : send, recv, n, e);
}

extern "C" mpiad_result_t
mpiad_gpu_reduce_scatter_block(const void *send, void *recv, int recvcount,
                               MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce_scatter_block";
  int e = 0, r = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_op(fn, op, &r));
  GPU_TRY(check_count(fn, recvcount));
  GPU_TRY(check_ptr(fn, send, recvcount, "send"));
  GPU_TRY(check_ptr(fn, recv, recvcount, "recv"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_reduce_scatter(s, send == MPI_IN_PLACE ? recv : send,
                                       recv, (size_t)recvcount, e, r);
}

extern "C" mpiad_result_t mpiad_gpu_alltoall(const void *send, int sendcount,
                                             MPI_Datatype sendtype, void *recv,
                                             int recvcount,
                                             MPI_Datatype recvtype,
                                             MPI_Comm comm) {
  const char *fn = "mpiad_gpu_alltoall";
  int e = 0;
  int in_place = send == MPI_IN_PLACE;
  GPU_TRY(check_types(fn, in_place ? recvtype : sendtype, recvtype, &e));
  GPU_TRY(check_count(fn, recvcount));
  if (!in_place && sendcount != recvcount)
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount, recvcount);
  GPU_TRY(check_ptr(fn, send, recvcount, "send"));
  GPU_TRY(check_ptr(fn, recv, recvcount, "recv"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_alltoall(s, in_place ? recv : send, recv,
                                 (size_t)recvcount, e);
}

extern "C" mpiad_result_t mpiad_gpu_gather(const void *send, int sendcount,
                                           MPI_Datatype sendtype, void *recv,
                                           int recvcount, MPI_Datatype recvtype,
                                           int root, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_gather";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_root(fn, comm, root, &rank, &size));
  int is_root = rank == root, in_place = send == MPI_IN_PLACE;
  if (in_place && !is_root)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  if (is_root) {
    GPU_TRY(check_types(fn, in_place ? recvtype : sendtype, recvtype, &e));
    GPU_TRY(check_count(fn, recvcount));
    if (!in_place && sendcount != recvcount)
      GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount,
                    recvcount);
    GPU_TRY(check_ptr(fn, recv, recvcount, "recv"));
  } else {
    GPU_TRY(check_type(fn, sendtype, &e));
    GPU_TRY(check_count(fn, sendcount));
  }
  int n = is_root ? recvcount : sendcount;
  GPU_TRY(check_ptr(fn, send, n, "send"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  const void *src =
      in_place ? elem_at((const void *)recv, (size_t)n * (size_t)root, e)
               : send;
  return mpiad_gpu_impl_gather(s, src, recv, (size_t)n, e, root);
}

extern "C" mpiad_result_t mpiad_gpu_scatter(const void *send, int sendcount,
                                            MPI_Datatype sendtype, void *recv,
                                            int recvcount,
                                            MPI_Datatype recvtype, int root,
                                            MPI_Comm comm) {
  const char *fn = "mpiad_gpu_scatter";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_root(fn, comm, root, &rank, &size));
  int is_root = rank == root, in_place = recv == MPI_IN_PLACE;
  if (in_place && !is_root)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  if (is_root) {
    GPU_TRY(check_types(fn, sendtype, in_place ? sendtype : recvtype, &e));
    GPU_TRY(check_count(fn, sendcount));
    if (!in_place && sendcount != recvcount)
      GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount,
                    recvcount);
    GPU_TRY(check_ptr(fn, send, sendcount, "send"));
  } else {
    GPU_TRY(check_type(fn, recvtype, &e));
    GPU_TRY(check_count(fn, recvcount));
  }
  int n = is_root ? sendcount : recvcount;
  GPU_TRY(check_ptr(fn, recv, n, "recv"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  void *dst =
      in_place ? elem_at((void *)send, (size_t)n * (size_t)root, e) : recv;
  return mpiad_gpu_impl_scatter(s, send, dst, (size_t)n, e, root);
}

extern "C" mpiad_result_t mpiad_gpu_send(const void *buf, int count,
                                         MPI_Datatype datatype, int dest,
                                         int tag, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_send";
  int e = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_ptr(fn, buf, count, "buf"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return mpiad_gpu_impl_send(s, buf, (size_t)count, e, dest, tag, 0);
}

extern "C" mpiad_result_t mpiad_gpu_recv(void *buf, int count,
                                         MPI_Datatype datatype, int source,
                                         int tag, MPI_Comm comm,
                                         MPI_Status *status) {
  const char *fn = "mpiad_gpu_recv";
  int e = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_ptr(fn, buf, count, "buf"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_recv(s, buf, (size_t)count, e, source, tag, 0, &st));
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return MPIAD_SUCCESS;
}

extern "C" mpiad_result_t
mpiad_gpu_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   int dest, int sendtag, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv";
  int se = 0, re = 0;
  GPU_TRY(check_type(fn, sendtype, &se));
  GPU_TRY(check_type(fn, recvtype, &re));
  GPU_TRY(check_count(fn, sendcount));
  GPU_TRY(check_count(fn, recvcount));
  GPU_TRY(check_ptr(fn, sendbuf, sendcount, "sendbuf"));
  GPU_TRY(check_ptr(fn, recvbuf, recvcount, "recvbuf"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, sendbuf, (size_t)sendcount, se, dest,
                                  sendtag, recvbuf, (size_t)recvcount, re,
                                  source, recvtag, 0, &st));
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return MPIAD_SUCCESS;
}

extern "C" mpiad_result_t
mpiad_gpu_sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv_replace";
  int e = 0;
  GPU_TRY(check_type(fn, datatype, &e));
  GPU_TRY(check_count(fn, count));
  GPU_TRY(check_ptr(fn, buf, count, "buf"));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, buf, (size_t)count, e, dest, sendtag, buf,
                                  (size_t)count, e, source, recvtag, 0, &st));
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  return MPIAD_SUCCESS;
}
