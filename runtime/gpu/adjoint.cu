/*
 * adjoint.cu - adjoints of MPI calls on device buffers: the recording
 * forward variants (allreduce/reduce with PROD/MAX/MIN, send, recv,
 * sendrecv, sendrecv_replace) and the reverse helpers, mirroring
 * adjoint_comm.c of the CPU runtime (see the "Adjoints of MPI calls on
 * device buffers" section of mpiad_gpu.h).
 *
 * Records (internal.h): PROD keeps [x | pv | zc] in its device region, x
 * the local inputs, pv the product over ranks of the non-zero inputs and zc
 * the number of zero inputs (all of the element type); MAX/MIN keep one
 * owner flag byte per element; send/recv keep the peer, tag and count only,
 * sendrecv and sendrecv_replace those of both halves in one record.
 *
 * Every helper: argument checks, the communicator's state, the record,
 * kernels and collectives on the state's stream, then one synchronisation.
 * Device scratch: the SCRATCH_HELPER area (the collectives use the other).
 */
#include "internal.h"

#include <limits.h>

/* ------------------------------------------------------------------------- */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------- */

#define GRID_STRIDE(k, n)                                                      \
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < (n);      \
       k += (size_t)gridDim.x * blockDim.x)

/* Derivative of the product over ranks with respect to this rank's input x:
 * the product of the other ranks' inputs, exact with zeros, never NaN from a
 * zero (as prod_deriv in comm_internal.h). */
static __device__ double prod_deriv(double x, double prod_nonzero,
                                    double zero_count) {
  if (zero_count == 0.0)
    return x != 0.0 ? prod_nonzero / x : 0.0;
  if (zero_count == 1.0 && x == 0.0)
    return prod_nonzero;
  return 0.0;
}

/* rec = [x | x or 1 where x == 0 | 1 where x == 0 else 0]. */
template <class T>
static __global__ void prod_prepare_kernel(const T *x, T *rec, size_t n) {
  GRID_STRIDE(k, n) {
    T v = x[k];
    rec[k] = v;
    rec[n + k] = v == T(0) ? T(1) : v;
    rec[2 * n + k] = v == T(0) ? T(1) : T(0);
  }
}

/* out = +0 where some input was zero, else the product of the inputs. */
template <class T>
static __global__ void prod_result_kernel(T *out, const T *pv, const T *zc,
                                          size_t n) {
  GRID_STRIDE(k, n) { out[k] = zc[k] > T(0) ? T(0) : pv[k]; }
}

/* cand = this rank where its input equals the extreme, else INT_MAX. */
template <class T>
static __global__ void owner_cand_kernel(const T *x, const T *m, int32_t *cand,
                                         int rank, size_t n) {
  GRID_STRIDE(k, n) { cand[k] = x[k] == m[k] ? rank : INT_MAX; }
}

/* flags = (lowest holder == this rank); out (if any) = the extreme. */
template <class T>
static __global__ void owner_flags_kernel(const int32_t *cand, int rank,
                                          unsigned char *flags, const T *m,
                                          T *out, size_t n) {
  GRID_STRIDE(k, n) {
    flags[k] = cand[k] == rank ? 1 : 0;
    if (out)
      out[k] = m[k];
  }
}

/* dst[k] = (overwrite ? 0 : dst[k]) + y[k] * d_k, d_k the derivative of the
 * reduction (op) with respect to this rank's input; rec is the PROD record
 * or the MAX/MIN flags (unused for SUM).  Computed in double, rounded once. */
template <class T>
static __global__ void contrib_kernel(int op, T *dst, const T *y,
                                      const void *rec, size_t n,
                                      int overwrite) {
  GRID_STRIDE(k, n) {
    double d;
    if (op == R_SUM) {
      d = 1.0;
    } else if (op == R_PROD) {
      const T *x = (const T *)rec; /* [x | pv | zc] */
      d = prod_deriv((double)x[k], (double)x[n + k], (double)x[2 * n + k]);
    } else {
      d = ((const unsigned char *)rec)[k] ? 1.0 : 0.0;
    }
    double g = d != 0.0 ? (double)y[k] * d : 0.0;
    dst[k] = (T)((overwrite ? 0.0 : (double)dst[k]) + g);
  }
}

/* ------------------------------------------------------------------------- */
/* Launchers (on the given stream, checked)                                  */
/* ------------------------------------------------------------------------- */

static int grid(size_t n) {
  return mpiad_gpu_blocks(n > (size_t)LONG_MAX ? LONG_MAX : (long)n);
}

template <class T>
static mpiad_result_t launch_prod_prepare(const void *x, void *rec, size_t n,
                                          cudaStream_t st) {
  if (n == 0)
    return MPIAD_SUCCESS;
  prod_prepare_kernel<T>
      <<<grid(n), MPIAD_GPU_THREADS, 0, st>>>((const T *)x, (T *)rec, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_prod_result(void *out, const void *rec, size_t n,
                                         cudaStream_t st) {
  if (n == 0 || !out)
    return MPIAD_SUCCESS;
  const T *pv = (const T *)rec + n;
  prod_result_kernel<T>
      <<<grid(n), MPIAD_GPU_THREADS, 0, st>>>((T *)out, pv, pv + n, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_owner_cand(const void *x, const void *m,
                                        int32_t *cand, int rank, size_t n,
                                        cudaStream_t st) {
  if (n == 0)
    return MPIAD_SUCCESS;
  owner_cand_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      (const T *)x, (const T *)m, cand, rank, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_owner_flags(const int32_t *cand, int rank,
                                         unsigned char *flags, const void *m,
                                         void *out, size_t n, cudaStream_t st) {
  if (n == 0)
    return MPIAD_SUCCESS;
  owner_flags_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      cand, rank, flags, (const T *)m, (T *)out, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_contrib(int op, void *dst, const void *y,
                                     const void *rec, size_t n, int overwrite,
                                     cudaStream_t st) {
  if (n == 0 || !dst)
    return MPIAD_SUCCESS;
  contrib_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      op, (T *)dst, (const T *)y, rec, n, overwrite);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

/* Element-kind dispatch of the launchers above. */
#define DISPATCH(e, fn, ...)                                                   \
  ((e) == E_F64 ? fn<double>(__VA_ARGS__) : fn<float>(__VA_ARGS__))

/* ------------------------------------------------------------------------- */
/* Argument checks                                                           */
/* ------------------------------------------------------------------------- */

static mpiad_result_t check_tc(const char *fn, MPI_Datatype t, int count,
                               int *e) {
  if (!elem_of(t, e))
    GPU_ARG_ERROR("%s: datatype must be MPI_DOUBLE or MPI_FLOAT", fn);
  if (count < 0)
    GPU_ARG_ERROR("%s: negative count %d", fn, count);
  return MPIAD_SUCCESS;
}

static mpiad_result_t check_op(const char *fn, MPI_Op op, int *r) {
  if (!redop_of(op, r))
    GPU_ARG_ERROR("%s: op must be MPI_SUM, MPI_PROD, MPI_MAX or MPI_MIN", fn);
  return MPIAD_SUCCESS;
}

/* rank and size of comm; root must be one of its ranks (MPI_PROC_NULL: the
 * call has no root). */
static mpiad_result_t comm_info(const char *fn, MPI_Comm comm, int root,
                                int *rank, int *size) {
  if (comm == MPI_COMM_NULL)
    GPU_ARG_ERROR("%s: MPI_COMM_NULL", fn);
  GPU_TRY_MPI(MPI_Comm_rank(comm, rank));
  GPU_TRY_MPI(MPI_Comm_size(comm, size));
  if (root != MPI_PROC_NULL && (root < 0 || root >= *size))
    GPU_ARG_ERROR("%s: root %d is not a rank of the communicator", fn, root);
  return MPIAD_SUCCESS;
}

static mpiad_result_t sync(mpiad_gpu_state *s) {
  GPU_TRY_CUDA(cudaStreamSynchronize(s->stream));
  return MPIAD_SUCCESS;
}

/* A zeroed scratch of n elements when p is NULL (a missing shadow still
 * takes part in the communication), else p itself. */
static mpiad_result_t or_zeros(mpiad_gpu_state *s, void *p, void *zeros,
                               size_t n, int e, void **out) {
  if (p) {
    *out = p;
    return MPIAD_SUCCESS;
  }
  GPU_TRY(mpiad_gpu_impl_zero(zeros, n, e, s->stream));
  *out = zeros;
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Allreduce / Reduce                                                        */
/* ------------------------------------------------------------------------- */

/* PROD forward: records [x | pv | zc], reduces pv (PROD) and zc (SUM) over
 * ranks, writes the result to out (NULL: not written). */
static mpiad_result_t prod_forward(mpiad_gpu_state *s, int what, const void *x,
                                   void *out, int count, int e, MPI_Comm comm) {
  size_t n = (size_t)count;
  mpiad_gpu_record r = {};
  r.what = what;
  r.e = e;
  r.op = R_PROD;
  r.count = count;
  r.comm = comm;
  void *rec;
  GPU_TRY(mpiad_gpu_impl_record_push(&r, 3 * n * elem_size(e), &rec));
  GPU_TRY(DISPATCH(e, launch_prod_prepare, x, rec, n, s->stream));
  void *pv = elem_at(rec, n, e), *zc = elem_at(rec, 2 * n, e);
  GPU_TRY(mpiad_gpu_impl_allreduce(s, pv, pv, n, e, R_PROD));
  GPU_TRY(mpiad_gpu_impl_allreduce(s, zc, zc, n, e, R_SUM));
  GPU_TRY(DISPATCH(e, launch_prod_result, out, rec, n, s->stream));
  return sync(s);
}

/* MAX/MIN forward: the extreme over ranks (scratch m), then the lowest rank
 * holding it (a MIN allreduce of candidates); records the owner flags and
 * writes the extreme to out (NULL: not written). */
static mpiad_result_t extreme_forward(mpiad_gpu_state *s, int what, int op,
                                      const void *x, void *out, int count,
                                      int e, MPI_Comm comm) {
  size_t n = (size_t)count;
  mpiad_gpu_record r = {};
  r.what = what;
  r.e = e;
  r.op = op;
  r.count = count;
  r.comm = comm;
  void *flags, *m, *cand;
  GPU_TRY(mpiad_gpu_impl_record_push(&r, n, &flags));
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * elem_size(e), &m,
                                n * sizeof(int32_t), &cand, 0, NULL, 0, NULL));
  GPU_TRY(mpiad_gpu_impl_allreduce(s, x, m, n, e, op));
  GPU_TRY(DISPATCH(e, launch_owner_cand, x, m, (int32_t *)cand, s->rank, n,
                   s->stream));
  GPU_TRY(mpiad_gpu_impl_allreduce(s, cand, cand, n, E_I32, R_MIN));
  GPU_TRY(DISPATCH(e, launch_owner_flags, (const int32_t *)cand, s->rank,
                   (unsigned char *)flags, m, out, n, s->stream));
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_allreduce_fwd(const void *send, void *recv,
                                                  int count,
                                                  MPI_Datatype datatype,
                                                  MPI_Op op, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_allreduce_fwd";
  int e = 0, r = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  GPU_TRY(check_op(fn, op, &r));
  if (count > 0 && (!send || !recv))
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  const void *x = send == MPI_IN_PLACE ? recv : send;
  if (r == R_SUM)
    return mpiad_gpu_impl_allreduce(s, x, recv, (size_t)count, e, R_SUM);
  if (r == R_PROD)
    return prod_forward(s, REC_ALLREDUCE, x, recv, count, e, comm);
  return extreme_forward(s, REC_ALLREDUCE, r, x, recv, count, e, comm);
}

extern "C" mpiad_result_t mpiad_gpu_allreduce_rev(void *send_b, void *recv_b,
                                                  int count,
                                                  MPI_Datatype datatype,
                                                  MPI_Op op, MPI_Comm comm,
                                                  int partial) {
  const char *fn = "mpiad_gpu_allreduce_rev";
  int e = 0, r = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  GPU_TRY(check_op(fn, op, &r));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)count;
  mpiad_gpu_record rec;
  void *reg = NULL;
  if (r != R_SUM)
    mpiad_gpu_impl_record_pop(REC_ALLREDUCE, e, count, fn, &rec, &reg);
  void *zeros, *ybar;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, recv_b ? 0 : n * elem_size(e),
                                &zeros, 0, NULL, 0, NULL, 0, NULL));
  GPU_TRY(or_zeros(s, recv_b, zeros, n, e, &ybar));
  if (partial)
    GPU_TRY(mpiad_gpu_impl_allreduce(s, ybar, ybar, n, e, R_SUM));
  if (!recv_b) /* the contributions are zero; nothing to write */
    return sync(s);
  if (send_b == MPI_IN_PLACE) {
    GPU_TRY(
        DISPATCH(e, launch_contrib, r, recv_b, recv_b, reg, n, 1, s->stream));
  } else {
    GPU_TRY(
        DISPATCH(e, launch_contrib, r, send_b, recv_b, reg, n, 0, s->stream));
    GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, e, s->stream));
  }
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_reduce_fwd(const void *send, void *recv,
                                               int count, MPI_Datatype datatype,
                                               MPI_Op op, int root,
                                               MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce_fwd";
  int e = 0, r = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  GPU_TRY(check_op(fn, op, &r));
  GPU_TRY(comm_info(fn, comm, root, &rank, &size));
  int is_root = rank == root;
  if (!is_root && send == MPI_IN_PLACE)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  if (count > 0 && (!send || (is_root && !recv)))
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  const void *x = send == MPI_IN_PLACE ? recv : send;
  void *out = is_root ? recv : NULL;
  if (r == R_SUM)
    return mpiad_gpu_impl_reduce(s, x, out, (size_t)count, e, R_SUM, root);
  if (r == R_PROD)
    return prod_forward(s, REC_REDUCE, x, out, count, e, comm);
  return extreme_forward(s, REC_REDUCE, r, x, out, count, e, comm);
}

extern "C" mpiad_result_t mpiad_gpu_reduce_rev(void *send_b, void *recv_b,
                                               int count, MPI_Datatype datatype,
                                               MPI_Op op, int root,
                                               MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce_rev";
  int e = 0, r = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  GPU_TRY(check_op(fn, op, &r));
  GPU_TRY(comm_info(fn, comm, root, &rank, &size));
  int is_root = rank == root;
  if (!is_root && send_b == MPI_IN_PLACE)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)count;
  mpiad_gpu_record rec;
  void *reg = NULL, *y;
  if (r != R_SUM)
    mpiad_gpu_impl_record_pop(REC_REDUCE, e, count, fn, &rec, &reg);
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * elem_size(e), &y, 0, NULL,
                                0, NULL, 0, NULL));
  if (is_root) {
    if (recv_b)
      GPU_TRY(mpiad_gpu_impl_copy(y, recv_b, n, e, s->stream));
    else
      GPU_TRY(mpiad_gpu_impl_zero(y, n, e, s->stream));
  }
  GPU_TRY(mpiad_gpu_impl_bcast(s, y, n, e, root));
  int in_place = is_root && send_b == MPI_IN_PLACE;
  void *dst = in_place ? recv_b : send_b;
  if (is_root && !in_place)
    GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, e, s->stream));
  GPU_TRY(DISPATCH(e, launch_contrib, r, dst, y, reg, n, in_place, s->stream));
  return sync(s);
}

/* ------------------------------------------------------------------------- */
/* Bcast, Allgather, Reduce_scatter_block, Alltoall, Gather, Scatter         */
/* ------------------------------------------------------------------------- */

extern "C" mpiad_result_t mpiad_gpu_bcast_rev(void *buf_b, int count,
                                              MPI_Datatype datatype, int root,
                                              MPI_Comm comm, int partial) {
  const char *fn = "mpiad_gpu_bcast_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  GPU_TRY(comm_info(fn, comm, root, &rank, &size));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)count;
  if (partial && n > 0) {
    void *zeros, *src;
    GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, buf_b ? 0 : n * elem_size(e),
                                  &zeros, 0, NULL, 0, NULL, 0, NULL));
    GPU_TRY(or_zeros(s, buf_b, zeros, n, e, &src));
    GPU_TRY(mpiad_gpu_impl_reduce(s, src, rank == root ? src : NULL, n, e,
                                  R_SUM, root));
  }
  if (rank != root)
    GPU_TRY(mpiad_gpu_impl_zero(buf_b, n, e, s->stream));
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_allgather_rev(void *send_b, int sendcount,
                                                  void *recv_b, int recvcount,
                                                  MPI_Datatype datatype,
                                                  MPI_Comm comm, int partial) {
  const char *fn = "mpiad_gpu_allgather_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, recvcount, &e));
  if (send_b != MPI_IN_PLACE && sendcount != recvcount)
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount, recvcount);
  GPU_TRY(comm_info(fn, comm, MPI_PROC_NULL, &rank, &size));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)recvcount, total = n * (size_t)size,
         off = n * (size_t)rank;
  void *g, *zeros;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * elem_size(e), &g,
                                recv_b ? 0 : total * elem_size(e), &zeros, 0,
                                NULL, 0, NULL));
  if (partial) {
    void *src;
    GPU_TRY(or_zeros(s, recv_b, zeros, total, e, &src));
    GPU_TRY(mpiad_gpu_impl_reduce_scatter(s, src, g, n, e, R_SUM));
  } else if (recv_b) {
    GPU_TRY(mpiad_gpu_impl_copy(g, elem_at(recv_b, off, e), n, e, s->stream));
  } else {
    GPU_TRY(mpiad_gpu_impl_zero(g, n, e, s->stream));
  }
  GPU_TRY(mpiad_gpu_impl_zero(recv_b, total, e, s->stream));
  if (send_b == MPI_IN_PLACE) {
    if (recv_b)
      GPU_TRY(mpiad_gpu_impl_copy(elem_at(recv_b, off, e), g, n, e, s->stream));
  } else {
    GPU_TRY(mpiad_gpu_impl_acc(send_b, g, n, e, s->stream));
  }
  return sync(s);
}

extern "C" mpiad_result_t
mpiad_gpu_reduce_scatter_block_rev(void *send_b, void *recv_b, int recvcount,
                                   MPI_Datatype datatype, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce_scatter_block_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, recvcount, &e));
  GPU_TRY(comm_info(fn, comm, MPI_PROC_NULL, &rank, &size));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)recvcount, total = n * (size_t)size;
  void *G, *zeros, *src;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, total * elem_size(e), &G,
                                recv_b ? 0 : n * elem_size(e), &zeros, 0, NULL,
                                0, NULL));
  GPU_TRY(or_zeros(s, recv_b, zeros, n, e, &src));
  GPU_TRY(mpiad_gpu_impl_allgather(s, src, G, n, e));
  if (send_b == MPI_IN_PLACE) {
    if (recv_b)
      GPU_TRY(mpiad_gpu_impl_copy(recv_b, G, total, e, s->stream));
  } else {
    GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, e, s->stream));
    GPU_TRY(mpiad_gpu_impl_acc(send_b, G, total, e, s->stream));
  }
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_alltoall_rev(void *send_b, int sendcount,
                                                 void *recv_b, int recvcount,
                                                 MPI_Datatype datatype,
                                                 MPI_Comm comm) {
  const char *fn = "mpiad_gpu_alltoall_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, recvcount, &e));
  int in_place = send_b == MPI_IN_PLACE;
  if (!in_place && sendcount != recvcount)
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d", fn, sendcount, recvcount);
  GPU_TRY(comm_info(fn, comm, MPI_PROC_NULL, &rank, &size));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)recvcount, rn = n * (size_t)size;
  void *G, *zeros, *src;
  GPU_TRY(mpiad_gpu_impl_dcarve(
      SCRATCH_HELPER, in_place ? 0 : rn * elem_size(e), &G,
      recv_b ? 0 : rn * elem_size(e), &zeros, 0, NULL, 0, NULL));
  GPU_TRY(or_zeros(s, recv_b, zeros, rn, e, &src));
  if (in_place) { /* the layouts are the same: one in-place alltoall */
    GPU_TRY(mpiad_gpu_impl_alltoall(s, src, src, n, e));
    return sync(s);
  }
  GPU_TRY(mpiad_gpu_impl_alltoall(s, src, G, n, e));
  GPU_TRY(mpiad_gpu_impl_zero(recv_b, rn, e, s->stream));
  GPU_TRY(mpiad_gpu_impl_acc(send_b, G, rn, e, s->stream));
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_gather_rev(void *send_b, int sendcount,
                                               void *recv_b, int recvcount,
                                               MPI_Datatype datatype, int root,
                                               MPI_Comm comm) {
  const char *fn = "mpiad_gpu_gather_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(comm_info(fn, comm, root, &rank, &size));
  int is_root = rank == root, in_place = send_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  /* in place at the root, sendcount is not significant */
  GPU_TRY(check_tc(fn, datatype, in_place ? recvcount : sendcount, &e));
  if (is_root && (recvcount < 0 || (!in_place && recvcount != sendcount)))
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d at the root", fn, sendcount,
                  recvcount);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t rc = is_root ? (size_t)recvcount : 0, total = rc * (size_t)size;
  size_t n = in_place ? rc : (size_t)sendcount;
  void *g, *zeros, *src = NULL;
  GPU_TRY(mpiad_gpu_impl_dcarve(
      SCRATCH_HELPER, in_place ? 0 : n * elem_size(e), &g,
      is_root && !recv_b ? total * elem_size(e) : 0, &zeros, 0, NULL, 0, NULL));
  if (is_root)
    GPU_TRY(or_zeros(s, recv_b, zeros, total, e, &src));
  if (in_place) {
    /* The root's own block stays where it is: it is its input adjoint. */
    GPU_TRY(mpiad_gpu_impl_scatter(s, src, elem_at(src, rc * (size_t)root, e),
                                   rc, e, root));
    for (int i = 0; recv_b && i < size; ++i)
      if (i != root)
        GPU_TRY(mpiad_gpu_impl_zero(elem_at(recv_b, rc * (size_t)i, e), rc, e,
                                    s->stream));
    return sync(s);
  }
  GPU_TRY(mpiad_gpu_impl_scatter(s, src, g, n, e, root));
  if (is_root)
    GPU_TRY(mpiad_gpu_impl_zero(recv_b, total, e, s->stream));
  GPU_TRY(mpiad_gpu_impl_acc(send_b, g, n, e, s->stream));
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_scatter_rev(void *send_b, int sendcount,
                                                void *recv_b, int recvcount,
                                                MPI_Datatype datatype, int root,
                                                MPI_Comm comm) {
  const char *fn = "mpiad_gpu_scatter_rev";
  int e = 0, rank = 0, size = 0;
  GPU_TRY(comm_info(fn, comm, root, &rank, &size));
  int is_root = rank == root, in_place = recv_b == MPI_IN_PLACE;
  if (in_place && !is_root)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  /* in place at the root, recvcount is not significant */
  GPU_TRY(check_tc(fn, datatype, in_place ? sendcount : recvcount, &e));
  if (is_root && (sendcount < 0 || (!in_place && sendcount != recvcount)))
    GPU_ARG_ERROR("%s: sendcount %d != recvcount %d at the root", fn, sendcount,
                  recvcount);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t sc = is_root ? (size_t)sendcount : 0, total = sc * (size_t)size;
  size_t n = is_root ? sc : (size_t)recvcount;
  void *G, *zeros, *src;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, total * elem_size(e), &G,
                                recv_b ? 0 : n * elem_size(e), &zeros, 0, NULL,
                                0, NULL));
  if (in_place)
    src = elem_at(G, sc * (size_t)root, e); /* in place: nothing to send */
  else
    GPU_TRY(or_zeros(s, recv_b, zeros, n, e, &src));
  GPU_TRY(mpiad_gpu_impl_gather(s, src, G, n, e, root));
  if (!in_place)
    GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, e, s->stream));
  if (is_root && send_b)
    for (int i = 0; i < size; ++i)
      if (!(in_place && i == root))
        GPU_TRY(mpiad_gpu_impl_acc(elem_at(send_b, sc * (size_t)i, e),
                                   elem_at(G, sc * (size_t)i, e), sc, e,
                                   s->stream));
  return sync(s);
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

extern "C" mpiad_result_t mpiad_gpu_send_fwd(const void *buf, int count,
                                             MPI_Datatype datatype, int dest,
                                             int tag, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_send_fwd";
  int e = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  if (count > 0 && !buf)
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  GPU_TRY(mpiad_gpu_impl_send(s, buf, (size_t)count, e, dest, tag, 0));
  mpiad_gpu_record r = {};
  r.what = REC_SEND;
  r.e = e;
  r.count = count;
  r.peer = dest;
  r.tag = tag;
  r.comm = comm;
  return mpiad_gpu_impl_record_push(&r, 0, NULL);
}

extern "C" mpiad_result_t mpiad_gpu_send_rev(void *send_b, int count,
                                             MPI_Datatype datatype, int dest,
                                             int tag, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_send_rev";
  int e = 0;
  (void)dest;
  (void)tag;
  (void)comm; /* recorded */
  GPU_TRY(check_tc(fn, datatype, count, &e));
  mpiad_gpu_record r;
  void *reg;
  mpiad_gpu_impl_record_pop(REC_SEND, e, -1, fn, &r, &reg);
  if (r.peer == MPI_PROC_NULL)
    return MPIAD_SUCCESS;
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(r.comm, &s));
  size_t n = (size_t)r.count;
  void *g;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * elem_size(e), &g, 0, NULL,
                                0, NULL, 0, NULL));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_recv(s, g, n, e, r.peer, r.tag, 1, &st));
  int got = 0;
  GPU_TRY_MPI(MPI_Get_count(&st, elem_mpi(e), &got));
  if (got > 0)
    GPU_TRY(mpiad_gpu_impl_acc(send_b, g, (size_t)got, e, s->stream));
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_recv_fwd(void *buf, int count,
                                             MPI_Datatype datatype, int source,
                                             int tag, MPI_Comm comm,
                                             MPI_Status *status) {
  const char *fn = "mpiad_gpu_recv_fwd";
  int e = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  if (count > 0 && !buf)
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_recv(s, buf, (size_t)count, e, source, tag, 0, &st));
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  int got = 0;
  GPU_TRY_MPI(MPI_Get_count(&st, elem_mpi(e), &got));
  mpiad_gpu_record r = {};
  r.what = REC_RECV;
  r.e = e;
  r.count = got == MPI_UNDEFINED ? 0 : got;
  r.peer = st.MPI_SOURCE;
  r.tag = st.MPI_TAG;
  r.comm = comm;
  return mpiad_gpu_impl_record_push(&r, 0, NULL);
}

extern "C" mpiad_result_t mpiad_gpu_recv_rev(void *recv_b, int count,
                                             MPI_Datatype datatype,
                                             MPI_Comm comm) {
  const char *fn = "mpiad_gpu_recv_rev";
  int e = 0;
  (void)comm; /* recorded */
  GPU_TRY(check_tc(fn, datatype, count, &e));
  mpiad_gpu_record r;
  void *reg;
  mpiad_gpu_impl_record_pop(REC_RECV, e, -1, fn, &r, &reg);
  if (r.peer == MPI_PROC_NULL)
    return MPIAD_SUCCESS; /* nothing was received */
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(r.comm, &s));
  size_t n = (size_t)r.count;
  void *zeros, *src;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, recv_b ? 0 : n * elem_size(e),
                                &zeros, 0, NULL, 0, NULL, 0, NULL));
  GPU_TRY(or_zeros(s, recv_b, zeros, n, e, &src));
  GPU_TRY(mpiad_gpu_impl_send(s, src, n, e, r.peer, r.tag, 1));
  GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, e, s->stream));
  return sync(s);
}

/* ------------------------------------------------------------------------- */
/* Sendrecv, Sendrecv_replace                                                */
/* ------------------------------------------------------------------------- */
/* One record holds both halves: the receive (actual source, tag, elements
 * received) and the send (dest, tag, count).  The reverse is ONE exchange
 * (mpiad_gpu_impl_sendrecv with the halves swapped): the adjoint of what
 * was received goes back to its actual source while the adjoint of what
 * was sent comes back from dest, on the adjoint channel (MPI path: the
 * private duplicate, with the messages' actual tags). */

/* Pops the record of a Sendrecv (what = REC_SENDRECV, send kind se) or of a
 * Sendrecv_replace; aborts if the send half's element kind differs. */
static void pop_sendrecv(int what, int re, int se, const char *fn,
                         mpiad_gpu_record *r) {
  void *reg;
  mpiad_gpu_impl_record_pop(what, re, -1, fn, r, &reg);
  if (r->send_e != se)
    mpiad_gpu_impl_fatal(
        "%s: the record on top sent %s, the reverse says %s: the reverse "
        "sweep does not mirror the forward sweep",
        fn, r->send_e == E_F64 ? "MPI_DOUBLE" : "MPI_FLOAT",
        se == E_F64 ? "MPI_DOUBLE" : "MPI_FLOAT");
}

/* The primal exchange, then the record of both halves. */
static mpiad_result_t sendrecv_forward(int what, mpiad_gpu_state *s,
                                       const void *sendbuf, int sendcount,
                                       int se, int dest, int sendtag,
                                       void *recvbuf, int recvcount, int re,
                                       int source, int recvtag, MPI_Comm comm,
                                       MPI_Status *status) {
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, sendbuf, (size_t)sendcount, se, dest,
                                  sendtag, recvbuf, (size_t)recvcount, re,
                                  source, recvtag, 0, &st));
  if (status != MPI_STATUS_IGNORE)
    *status = st;
  int got = 0;
  GPU_TRY_MPI(MPI_Get_count(&st, elem_mpi(re), &got));
  mpiad_gpu_record r = {};
  r.what = what;
  r.e = re;
  r.count = got == MPI_UNDEFINED ? 0 : got;
  r.peer = st.MPI_SOURCE;
  r.tag = st.MPI_TAG;
  r.send_e = se;
  r.send_count = sendcount;
  r.send_peer = dest;
  r.send_tag = sendtag;
  r.comm = comm;
  return mpiad_gpu_impl_record_push(&r, 0, NULL);
}

/* The reverse exchange of record r: sends recv_b[0..received) (zeros if
 * NULL) to the actual source and receives the adjoint of the sent message
 * from dest into device scratch G; then recv_b[0..received) = 0 and
 * send_b += G (send_b NULL: discarded).  send_b == recv_b (replace): the
 * received part is zeroed before G is added. */
static mpiad_result_t sendrecv_reverse(const mpiad_gpu_record *r, void *send_b,
                                       void *recv_b) {
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(r->comm, &s));
  size_t n = (size_t)r->count, m = (size_t)r->send_count;
  void *G, *zeros, *src;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, m * elem_size(r->send_e), &G,
                                recv_b ? 0 : n * elem_size(r->e), &zeros, 0,
                                NULL, 0, NULL));
  GPU_TRY(or_zeros(s, recv_b, zeros, n, r->e, &src));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, src, n, r->e, r->peer, r->tag, G, m,
                                  r->send_e, r->send_peer, r->send_tag, 1,
                                  &st));
  GPU_TRY(mpiad_gpu_impl_zero(recv_b, n, r->e, s->stream));
  if (r->send_peer != MPI_PROC_NULL) {
    int got = 0;
    GPU_TRY_MPI(MPI_Get_count(&st, elem_mpi(r->send_e), &got));
    if (got > 0 && got != MPI_UNDEFINED)
      GPU_TRY(mpiad_gpu_impl_acc(send_b, G, (size_t)got, r->send_e, s->stream));
  }
  return sync(s);
}

extern "C" mpiad_result_t mpiad_gpu_sendrecv_fwd(
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
    int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv_fwd";
  int se = 0, re = 0;
  GPU_TRY(check_tc(fn, sendtype, sendcount, &se));
  GPU_TRY(check_tc(fn, recvtype, recvcount, &re));
  if ((sendcount > 0 && !sendbuf) || (recvcount > 0 && !recvbuf))
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return sendrecv_forward(REC_SENDRECV, s, sendbuf, sendcount, se, dest,
                          sendtag, recvbuf, recvcount, re, source, recvtag,
                          comm, status);
}

extern "C" mpiad_result_t
mpiad_gpu_sendrecv_rev(void *send_b, int sendcount, MPI_Datatype sendtype,
                       int dest, int sendtag, void *recv_b, int recvcount,
                       MPI_Datatype recvtype, int recvtag, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_sendrecv_rev";
  int se = 0, re = 0;
  (void)dest;
  (void)sendtag;
  (void)recvtag;
  (void)comm; /* recorded */
  GPU_TRY(check_tc(fn, sendtype, sendcount, &se));
  GPU_TRY(check_tc(fn, recvtype, recvcount, &re));
  mpiad_gpu_record r;
  pop_sendrecv(REC_SENDRECV, re, se, fn, &r);
  return sendrecv_reverse(&r, send_b, recv_b);
}

extern "C" mpiad_result_t
mpiad_gpu_sendrecv_replace_fwd(void *buf, int count, MPI_Datatype datatype,
                               int dest, int sendtag, int source, int recvtag,
                               MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv_replace_fwd";
  int e = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  if (count > 0 && !buf)
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  return sendrecv_forward(REC_SENDRECV_REPLACE, s, buf, count, e, dest, sendtag,
                          buf, count, e, source, recvtag, comm, status);
}

extern "C" mpiad_result_t mpiad_gpu_sendrecv_replace_rev(void *buf_b, int count,
                                                         MPI_Datatype datatype,
                                                         int dest, int sendtag,
                                                         int recvtag,
                                                         MPI_Comm comm) {
  const char *fn = "mpiad_gpu_sendrecv_replace_rev";
  int e = 0;
  (void)dest;
  (void)sendtag;
  (void)recvtag;
  (void)comm; /* recorded */
  GPU_TRY(check_tc(fn, datatype, count, &e));
  mpiad_gpu_record r;
  pop_sendrecv(REC_SENDRECV_REPLACE, e, e, fn, &r);
  /* Elements [received, count) kept their value in the primal: their
   * adjoint stays in buf_b; [0, received) were overwritten by the message:
   * their adjoint goes back, then buf_b += the adjoint of what was sent. */
  return sendrecv_reverse(&r, buf_b, buf_b);
}
