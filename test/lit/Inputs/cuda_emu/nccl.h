/* Emulated NCCL for the tests of the CUDA target without a GPU (see
 * cuda_runtime.h beside it): "device" memory is host memory, and each NCCL
 * call is the MPI call of the same meaning, made when it is enqueued (streams
 * are only handles).  Only what the tests and runtime/gpu/nccl.cu call; the
 * constants have NCCL's values.  C and C++.
 *
 * - ncclGetUniqueId names the calling rank of MPI_COMM_WORLD and a serial
 *   number; ncclCommInitRank is MPI_Comm_split of MPI_COMM_WORLD by that id,
 *   so EVERY rank of MPI_COMM_WORLD must call it at the same time (the tests
 *   do), and it checks nranks and rank.
 * - In place is NCCL's (the same pointer; for AllGather / ReduceScatter this
 *   rank's block); ncclAvg is a sum divided by the number of ranks.
 * - ncclSend / ncclRecv between ncclGroupStart and ncclGroupEnd are
 *   non-blocking MPI calls completed by ncclGroupEnd; outside a group they
 *   are blocking. */
#ifndef MPIAD_EMU_NCCL_H
#define MPIAD_EMU_NCCL_H

#include "cuda_runtime.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5
} ncclResult_t;

typedef enum {
  ncclInt8 = 0,
  ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclHalf = 6,
  ncclFloat32 = 7,
  ncclFloat = 7,
  ncclFloat64 = 8,
  ncclDouble = 8
} ncclDataType_t;

typedef enum {
  ncclSum = 0,
  ncclProd = 1,
  ncclMax = 2,
  ncclMin = 3,
  ncclAvg = 4
} ncclRedOp_t;

typedef struct {
  char internal[128];
} ncclUniqueId;

struct mpiad_emu_nccl_comm {
  MPI_Comm comm;
  int rank, size;
};
typedef struct mpiad_emu_nccl_comm *ncclComm_t;

static inline const char *ncclGetErrorString(ncclResult_t r) {
  return r == ncclSuccess ? "no error" : "emulated NCCL error";
}

static inline ncclResult_t mpiad_emu_nccl_type(ncclDataType_t t,
                                               MPI_Datatype *m, size_t *sz) {
  switch (t) {
  case ncclFloat64:
    *m = MPI_DOUBLE;
    *sz = 8;
    return ncclSuccess;
  case ncclFloat32:
    *m = MPI_FLOAT;
    *sz = 4;
    return ncclSuccess;
  case ncclInt32:
    *m = MPI_INT32_T;
    *sz = 4;
    return ncclSuccess;
  case ncclInt64:
    *m = MPI_INT64_T;
    *sz = 8;
    return ncclSuccess;
  default:
    return ncclInvalidArgument;
  }
}

static inline MPI_Op mpiad_emu_nccl_op(ncclRedOp_t op) {
  return op == ncclProd ? MPI_PROD
         : op == ncclMax ? MPI_MAX
         : op == ncclMin ? MPI_MIN
                         : MPI_SUM;
}

/* buf[0..n) /= size for ncclAvg (floating types). */
static inline void mpiad_emu_nccl_avg(void *buf, size_t n, ncclDataType_t t,
                                      int size) {
  for (size_t k = 0; k < n; ++k) {
    if (t == ncclFloat64)
      ((double *)buf)[k] /= size;
    else if (t == ncclFloat32)
      ((float *)buf)[k] /= (float)size;
  }
}

static inline ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  static int serial;
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  memset(id, 0, sizeof *id);
  int v[2] = {r, serial++};
  memcpy(id->internal, v, sizeof v);
  return ncclSuccess;
}

static inline ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                            ncclUniqueId id, int rank) {
  int v[2];
  memcpy(v, id.internal, sizeof v);
  ncclComm_t c = (ncclComm_t)malloc(sizeof *c);
  if (!c)
    return ncclSystemError;
  if (MPI_Comm_split(MPI_COMM_WORLD, v[0] * 4096 + v[1] % 4096, rank,
                     &c->comm) != MPI_SUCCESS)
    return ncclSystemError;
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  if (c->size != nranks || c->rank != rank) {
    fprintf(stderr, "emulated ncclCommInitRank: %d ranks share the id, not "
                    "%d (or rank %d is taken)\n",
            c->size, nranks, rank);
    return ncclInvalidUsage;
  }
  *comm = c;
  return ncclSuccess;
}

static inline ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  MPI_Comm_free(&comm->comm);
  free(comm);
  return ncclSuccess;
}

static inline ncclResult_t ncclCommCount(ncclComm_t comm, int *count) {
  *count = comm->size;
  return ncclSuccess;
}

static inline ncclResult_t ncclCommUserRank(ncclComm_t comm, int *rank) {
  *rank = comm->rank;
  return ncclSuccess;
}

#define MPIAD_EMU_NCCL_TYPE(dt, m, sz)                                         \
  MPI_Datatype m;                                                              \
  size_t sz;                                                                   \
  if (mpiad_emu_nccl_type(dt, &m, &sz) != ncclSuccess)                         \
  return ncclInvalidArgument

static inline ncclResult_t ncclAllReduce(const void *send, void *recv,
                                         size_t count, ncclDataType_t dt,
                                         ncclRedOp_t op, ncclComm_t comm,
                                         cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  (void)sz;
  if (MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, (int)count, m,
                    mpiad_emu_nccl_op(op), comm->comm) != MPI_SUCCESS)
    return ncclSystemError;
  if (op == ncclAvg)
    mpiad_emu_nccl_avg(recv, count, dt, comm->size);
  return ncclSuccess;
}

static inline ncclResult_t ncclReduce(const void *send, void *recv,
                                      size_t count, ncclDataType_t dt,
                                      ncclRedOp_t op, int root,
                                      ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  (void)sz;
  int is_root = comm->rank == root;
  if (MPI_Reduce(is_root && send == recv ? MPI_IN_PLACE : send,
                 is_root ? recv : NULL, (int)count, m, mpiad_emu_nccl_op(op),
                 root, comm->comm) != MPI_SUCCESS)
    return ncclSystemError;
  if (op == ncclAvg && is_root)
    mpiad_emu_nccl_avg(recv, count, dt, comm->size);
  return ncclSuccess;
}

static inline ncclResult_t ncclBroadcast(const void *send, void *recv,
                                         size_t count, ncclDataType_t dt,
                                         int root, ncclComm_t comm,
                                         cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  if (comm->rank == root && send != recv && count)
    memmove(recv, send, count * sz);
  if (MPI_Bcast(recv, (int)count, m, root, comm->comm) != MPI_SUCCESS)
    return ncclSystemError;
  return ncclSuccess;
}

static inline ncclResult_t ncclAllGather(const void *send, void *recv,
                                         size_t sendcount, ncclDataType_t dt,
                                         ncclComm_t comm,
                                         cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  int in_place = (const char *)send == (char *)recv + comm->rank * sendcount * sz;
  if (MPI_Allgather(in_place ? MPI_IN_PLACE : send, (int)sendcount, m, recv,
                    (int)sendcount, m, comm->comm) != MPI_SUCCESS)
    return ncclSystemError;
  return ncclSuccess;
}

static inline ncclResult_t ncclAlltoAll(const void *send, void *recv,
                                        size_t count, ncclDataType_t dt,
                                        ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  (void)sz;
  if (MPI_Alltoall(send, (int)count, m, recv, (int)count, m, comm->comm) !=
      MPI_SUCCESS)
    return ncclSystemError;
  return ncclSuccess;
}

static inline ncclResult_t ncclBcast(void *buff, size_t count,
                                     ncclDataType_t dt, int root,
                                     ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, dt, root, comm, stream);
}

static inline ncclResult_t ncclReduceScatter(const void *send, void *recv,
                                             size_t recvcount,
                                             ncclDataType_t dt, ncclRedOp_t op,
                                             ncclComm_t comm,
                                             cudaStream_t stream) {
  (void)stream;
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  size_t all = recvcount * (size_t)comm->size;
  /* NCCL's in place (recv is this rank's block of send) is not MPI's: copy */
  void *in = malloc(all * sz + 1);
  if (!in)
    return ncclSystemError;
  memcpy(in, send, all * sz);
  int rc = MPI_Reduce_scatter_block(in, recv, (int)recvcount, m,
                                    mpiad_emu_nccl_op(op), comm->comm);
  free(in);
  if (rc != MPI_SUCCESS)
    return ncclSystemError;
  if (op == ncclAvg)
    mpiad_emu_nccl_avg(recv, recvcount, dt, comm->size);
  return ncclSuccess;
}

/* Groups of point-to-point calls: the requests of the open group.  One state
 * for the whole program (weak definitions, merged by the linker): the
 * generated code opens a group that libmpiad_gpu's helpers send in. */
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((weak)) int mpiad_emu_nccl_group_depth;
__attribute__((weak)) int mpiad_emu_nccl_nreq;
__attribute__((weak)) MPI_Request mpiad_emu_nccl_req[256];
#ifdef __cplusplus
}
#endif

static inline ncclResult_t ncclGroupStart(void) {
  ++mpiad_emu_nccl_group_depth;
  return ncclSuccess;
}

static inline ncclResult_t ncclGroupEnd(void) {
  if (mpiad_emu_nccl_group_depth == 0)
    return ncclInvalidUsage;
  if (--mpiad_emu_nccl_group_depth == 0) {
    int n = mpiad_emu_nccl_nreq;
    mpiad_emu_nccl_nreq = 0;
    if (MPI_Waitall(n, mpiad_emu_nccl_req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return ncclSystemError;
  }
  return ncclSuccess;
}

static inline ncclResult_t mpiad_emu_nccl_p2p(int send, void *buf,
                                              size_t count, ncclDataType_t dt,
                                              int peer, ncclComm_t comm) {
  MPIAD_EMU_NCCL_TYPE(dt, m, sz);
  (void)sz;
  const int tag = 0x4e43;
  if (mpiad_emu_nccl_group_depth == 0) {
    int rc = send ? MPI_Send(buf, (int)count, m, peer, tag, comm->comm)
                  : MPI_Recv(buf, (int)count, m, peer, tag, comm->comm,
                             MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError;
  }
  if (mpiad_emu_nccl_nreq == 256)
    return ncclInvalidUsage;
  MPI_Request *r = &mpiad_emu_nccl_req[mpiad_emu_nccl_nreq++];
  int rc = send ? MPI_Isend(buf, (int)count, m, peer, tag, comm->comm, r)
                : MPI_Irecv(buf, (int)count, m, peer, tag, comm->comm, r);
  return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError;
}

static inline ncclResult_t ncclSend(const void *send, size_t count,
                                    ncclDataType_t dt, int peer,
                                    ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return mpiad_emu_nccl_p2p(1, (void *)send, count, dt, peer, comm);
}

static inline ncclResult_t ncclRecv(void *recv, size_t count,
                                    ncclDataType_t dt, int peer,
                                    ncclComm_t comm, cudaStream_t stream) {
  (void)stream;
  return mpiad_emu_nccl_p2p(0, recv, count, dt, peer, comm);
}

#endif
