/*
 * internal.h - internal declarations shared by the sources of libmpiad_gpu
 * (core.cu, comm.cu, coll.cu, adjoint.cu, tangent.cu).  Not installed.
 *
 * Error propagation (the NCCL style: every call checked, the first failure
 * remembered with its place), element kinds, the per-communicator state, the
 * device and pinned host scratch, the record stack of the adjoint helpers,
 * the element-wise launchers and the collectives on device buffers that the
 * public functions and the adjoint helpers are built from.
 */
#ifndef MPIAD_GPU_INTERNAL_H
#define MPIAD_GPU_INTERNAL_H

#include "mpiad_gpu.h"

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------- */
/* Errors                                                                    */
/* ------------------------------------------------------------------------- */

/* Remembers (if it is the first failure) "<call> failed at <file>:<line>:
 * <reason>" and returns r. */
mpiad_result_t mpiad_gpu_impl_call_failed(mpiad_result_t r, const char *call,
                                          const char *file, int line,
                                          const char *reason);

/* Remembers (if it is the first failure) "<formatted message> (at
 * <file>:<line>)" and returns r. */
mpiad_result_t mpiad_gpu_impl_failed(mpiad_result_t r, const char *file,
                                     int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints "mpiad_gpu: <formatted message>" to stderr and aborts the program
 * (MPI_Abort on MPI_COMM_WORLD while MPI is running, abort() otherwise). */
[[noreturn]] void mpiad_gpu_impl_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* The result code of a failed CUDA call. */
static inline mpiad_result_t cuda_result(cudaError_t e) {
  return e == cudaErrorMemoryAllocation ? MPIAD_ERR_NOMEM : MPIAD_ERR_MPI;
}

/* Evaluate a CUDA / NCCL / MPI / runtime call; on failure remember the
 * message and return the result code from the enclosing function. */
#define GPU_TRY_CUDA(call)                                                     \
  do {                                                                         \
    cudaError_t gpu_try_e_ = (call);                                           \
    if (gpu_try_e_ != cudaSuccess)                                             \
      return mpiad_gpu_impl_call_failed(cuda_result(gpu_try_e_), #call,        \
                                        __FILE__, __LINE__,                    \
                                        cudaGetErrorString(gpu_try_e_));       \
  } while (0)

#define GPU_TRY_NCCL(call)                                                     \
  do {                                                                         \
    ncclResult_t gpu_try_n_ = (call);                                          \
    if (gpu_try_n_ != ncclSuccess)                                             \
      return mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, #call, __FILE__,        \
                                        __LINE__,                              \
                                        ncclGetErrorString(gpu_try_n_));       \
  } while (0)

#define GPU_TRY_MPI(call)                                                      \
  do {                                                                         \
    int gpu_try_m_ = (call);                                                   \
    if (gpu_try_m_ != MPI_SUCCESS)                                             \
      return mpiad_gpu_impl_mpi_failed(gpu_try_m_, #call, __FILE__, __LINE__); \
  } while (0)

#define GPU_TRY(call)                                                          \
  do {                                                                         \
    mpiad_result_t gpu_try_r_ = (call);                                        \
    if (gpu_try_r_ != MPIAD_SUCCESS)                                           \
      return gpu_try_r_;                                                       \
  } while (0)

/* Returns MPIAD_ERR_ARG from the enclosing function with a message. */
#define GPU_ARG_ERROR(...)                                                     \
  return mpiad_gpu_impl_failed(MPIAD_ERR_ARG, __FILE__, __LINE__, __VA_ARGS__)

/* As mpiad_gpu_impl_call_failed for an MPI error code (MPI_Error_string). */
mpiad_result_t mpiad_gpu_impl_mpi_failed(int code, const char *call,
                                         const char *file, int line);

/* ------------------------------------------------------------------------- */
/* Element kinds and reduction operations                                    */
/* ------------------------------------------------------------------------- */

enum { E_F64 = 0, E_F32 = 1, E_I32 = 2 };
enum { R_SUM = 0, R_PROD = 1, R_MAX = 2, R_MIN = 3 };

/* Sets *e for MPI_DOUBLE / MPI_FLOAT (the user-visible types); 0 otherwise. */
static inline int elem_of(MPI_Datatype t, int *e) {
  if (t == MPI_DOUBLE) {
    *e = E_F64;
    return 1;
  }
  if (t == MPI_FLOAT) {
    *e = E_F32;
    return 1;
  }
  return 0;
}

static inline size_t elem_size(int e) {
  return e == E_F64   ? sizeof(double)
         : e == E_F32 ? sizeof(float)
                      : sizeof(int32_t);
}

static inline MPI_Datatype elem_mpi(int e) {
  return e == E_F64 ? MPI_DOUBLE : e == E_F32 ? MPI_FLOAT : MPI_INT32_T;
}

static inline ncclDataType_t elem_nccl(int e) {
  return e == E_F64 ? ncclFloat64 : e == E_F32 ? ncclFloat32 : ncclInt32;
}

/* Sets *r for MPI_SUM / MPI_PROD / MPI_MAX / MPI_MIN; 0 otherwise. */
static inline int redop_of(MPI_Op op, int *r) {
  if (op == MPI_SUM)
    *r = R_SUM;
  else if (op == MPI_PROD)
    *r = R_PROD;
  else if (op == MPI_MAX)
    *r = R_MAX;
  else if (op == MPI_MIN)
    *r = R_MIN;
  else
    return 0;
  return 1;
}

static inline MPI_Op redop_mpi(int r) {
  return r == R_SUM    ? MPI_SUM
         : r == R_PROD ? MPI_PROD
         : r == R_MAX  ? MPI_MAX
                       : MPI_MIN;
}

static inline ncclRedOp_t redop_nccl(int r) {
  return r == R_SUM    ? ncclSum
         : r == R_PROD ? ncclProd
         : r == R_MAX  ? ncclMax
                       : ncclMin;
}

/* p advanced by off elements of e. */
static inline void *elem_at(void *p, size_t off, int e) {
  return (unsigned char *)p + off * elem_size(e);
}
static inline const void *elem_at(const void *p, size_t off, int e) {
  return (const unsigned char *)p + off * elem_size(e);
}

/* ------------------------------------------------------------------------- */
/* Per-communicator state (comm.cu)                                          */
/* ------------------------------------------------------------------------- */

typedef struct mpiad_gpu_state {
  MPI_Comm comm;  /* the user's communicator */
  MPI_Comm adj;   /* MPI path: private duplicate for adjoint messages */
  int rank, size; /* in comm */
  int device;     /* CUDA device current at creation */
  int nccl_path;  /* 1: NCCL, 0: host-staged MPI */
  ncclComm_t nccl;
  cudaStream_t stream;          /* blocking stream of every call on comm */
  struct mpiad_gpu_state *next; /* list of live states */
} mpiad_gpu_state;

/* The state of comm, created on first use (collective over comm then). */
mpiad_result_t mpiad_gpu_impl_state(MPI_Comm comm, mpiad_gpu_state **out);

/* ------------------------------------------------------------------------- */
/* Scratch memory (core.cu)                                                  */
/* ------------------------------------------------------------------------- */

/* Two device scratch areas: one for the adjoint helpers and the batch, one
 * for the collectives they call, so that the two never overwrite each
 * other.  Each grows and is reused; contents are not kept across carves. */
enum { SCRATCH_HELPER = 0, SCRATCH_COLL = 1 };

/* Carves device scratch `which` into up to 4 regions of the given byte sizes,
 * each aligned to 256 bytes (a size of 0 gives a valid, unused pointer; a
 * NULL r_i is allowed).  Valid until the next carve of the same area. */
mpiad_result_t mpiad_gpu_impl_dcarve(int which, size_t b0, void **r0, size_t b1,
                                     void **r1, size_t b2, void **r2, size_t b3,
                                     void **r3);

/* Carves the pinned host staging buffer (used only by the staged MPI path of
 * the collectives) into two regions. */
mpiad_result_t mpiad_gpu_impl_hcarve(size_t b0, void **r0, size_t b1,
                                     void **r1);

/* Frees the scratch, partials and record memory (at MPI_Finalize). */
void mpiad_gpu_impl_release_core(void);

/* ------------------------------------------------------------------------- */
/* Element-wise launchers (core.cu), on `stream`, checked                    */
/* ------------------------------------------------------------------------- */

/* p[0..n) = 0 (p NULL: nothing). */
mpiad_result_t mpiad_gpu_impl_zero(void *p, size_t n, int e,
                                   cudaStream_t stream);
/* dst[0..n) = src[0..n) (dst NULL or dst == src: nothing). */
mpiad_result_t mpiad_gpu_impl_copy(void *dst, const void *src, size_t n, int e,
                                   cudaStream_t stream);
/* dst[0..n) += src[0..n), float data in float (dst NULL: nothing). */
mpiad_result_t mpiad_gpu_impl_acc(void *dst, const void *src, size_t n, int e,
                                  cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* Record stack (core.cu)                                                    */
/* ------------------------------------------------------------------------- */

enum {
  REC_ALLREDUCE = 1,
  REC_REDUCE,
  REC_SEND,
  REC_RECV,
  REC_SENDRECV,        /* both halves of a Sendrecv in one record */
  REC_SENDRECV_REPLACE /* both halves of a Sendrecv_replace */
};

typedef struct {
  int what;      /* REC_* */
  int e;         /* element kind (SENDRECV*: of the receive half) */
  int op;        /* R_* (collectives) */
  int count;     /* elements (RECV, SENDRECV*: received) */
  int peer, tag; /* SEND: dest and tag; RECV, SENDRECV*: actual source and
                    tag */
  /* SENDRECV*: the send half (element kind, count, dest, tag) */
  int send_e, send_count, send_peer, send_tag;
  MPI_Comm comm;
  /* filled by the record stack */
  size_t chunk, off, bytes;    /* the device region */
  size_t prev_chunk, prev_off; /* top of the stack before the push */
} mpiad_gpu_record;

/* Pushes a copy of *r with a device region of `bytes` bytes (0: none);
 * *region (may be NULL when bytes == 0) is valid until the next push. */
mpiad_result_t mpiad_gpu_impl_record_push(const mpiad_gpu_record *r,
                                          size_t bytes, void **region);

/* Pops the top record into *r and its region into *region (valid until the
 * next push).  Aborts with a message naming `where` if the stack is empty or
 * the top record is not of kind `what` with element kind e (and, if count >=
 * 0, that count). */
void mpiad_gpu_impl_record_pop(int what, int e, int count, const char *where,
                               mpiad_gpu_record *r, void **region);

/* ------------------------------------------------------------------------- */
/* Collectives on device buffers (coll.cu)                                   */
/* ------------------------------------------------------------------------- */
/* Internal forms of the public calls, on a state, with element kinds and
 * size_t counts; in place is expressed by pointers as in NCCL (see each).
 * All complete before returning.  The staged MPI path needs counts that fit
 * an int, except allreduce, which splits. */

/* send == recv: in place. */
mpiad_result_t mpiad_gpu_impl_allreduce(mpiad_gpu_state *s, const void *send,
                                        void *recv, size_t n, int e, int op);
/* send == recv at the root: in place; recv used only at the root. */
mpiad_result_t mpiad_gpu_impl_reduce(mpiad_gpu_state *s, const void *send,
                                     void *recv, size_t n, int e, int op,
                                     int root);
mpiad_result_t mpiad_gpu_impl_bcast(mpiad_gpu_state *s, void *buf, size_t n,
                                    int e, int root);
/* send may be recv + rank * n (in place). */
mpiad_result_t mpiad_gpu_impl_allgather(mpiad_gpu_state *s, const void *send,
                                        void *recv, size_t n, int e);
/* send has size * n elements; send == recv: MPI's in place (the input is
 * recv, the result goes to recv[0..n)). */
mpiad_result_t mpiad_gpu_impl_reduce_scatter(mpiad_gpu_state *s,
                                             const void *send, void *recv,
                                             size_t n, int e, int op);
/* send == recv: in place. */
mpiad_result_t mpiad_gpu_impl_alltoall(mpiad_gpu_state *s, const void *send,
                                       void *recv, size_t n, int e);
/* At the root send == recv + root * n: in place. */
mpiad_result_t mpiad_gpu_impl_gather(mpiad_gpu_state *s, const void *send,
                                     void *recv, size_t n, int e, int root);
/* At the root recv == send + root * n: in place. */
mpiad_result_t mpiad_gpu_impl_scatter(mpiad_gpu_state *s, const void *send,
                                      void *recv, size_t n, int e, int root);
/* adjoint: the message is an adjoint message (MPI path: on s->adj). */
mpiad_result_t mpiad_gpu_impl_send(mpiad_gpu_state *s, const void *buf,
                                   size_t n, int e, int peer, int tag,
                                   int adjoint);
/* *status (not MPI_STATUS_IGNORE) is filled as by MPI_Recv. */
mpiad_result_t mpiad_gpu_impl_recv(mpiad_gpu_state *s, void *buf, size_t n,
                                   int e, int peer, int tag, int adjoint,
                                   MPI_Status *status);
/* One exchange, as MPI_Sendrecv: sends sn elements of kind se from send to
 * dest (tag stag) and receives up to rn elements of kind re from source (tag
 * rtag) into recv; MPI_PROC_NULL on either side skips that half.  send ==
 * recv: MPI_Sendrecv_replace (the data sent are read before recv is
 * written; NCCL path: from a SCRATCH_COLL copy).  NCCL path: the send and
 * the receive in one NCCL group; wildcards give MPIAD_ERR_ARG; exactly rn
 * elements are received; an exchange with this rank itself on both sides
 * is a device copy (sn must equal rn).  *status (not MPI_STATUS_IGNORE) is
 * filled as by MPI_Sendrecv. */
mpiad_result_t mpiad_gpu_impl_sendrecv(mpiad_gpu_state *s, const void *send,
                                       size_t sn, int se, int dest, int stag,
                                       void *recv, size_t rn, int re,
                                       int source, int rtag, int adjoint,
                                       MPI_Status *status);

#endif /* MPIAD_GPU_INTERNAL_H */
