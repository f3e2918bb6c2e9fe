/*
 * tangent.cu - tangents (forward mode) of MPI calls on device buffers: the
 * device versions of the helpers of tangent_comm.c (the "Tangents of MPI
 * communication" section of mpiad.h), same argument lists and contract, all
 * buffers DEVICE pointers (see the "Tangents of MPI calls on device buffers"
 * section of mpiad_gpu.h).
 *
 * Reductions: the primal and the tangent; the local term dy/dx_r * x_d_r of
 * PROD / MAX / MIN is computed by a kernel into device scratch BEFORE the
 * primal output (which may be the input, in place) is written, then summed
 * over ranks by one SUM collective.  PROD's zero handling and MAX/MIN's tie
 * rule (the lowest rank owns the extreme) are those of adjoint.cu.
 *
 * Point to point: the primal and the tangent travel as ONE message
 * [primal | tangent] of 2 * count elements, packed in device scratch (two
 * device copies), with the primal's destination, tag and communicator, so
 * message matching is the primal's and a received tangent always comes from
 * the actual sender.
 *
 * Every helper: argument checks (before any communication), the
 * communicator's state, kernels and collectives on the state's stream, one
 * synchronisation.  Device scratch: the SCRATCH_HELPER area.
 */
#include "internal.h"

#include <limits.h>

/* ------------------------------------------------------------------------- */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------- */

#define GRID_STRIDE(k, n)                                                      \
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < (n);      \
       k += (size_t)gridDim.x * blockDim.x)

/* pair = [x, or 1 where x == 0 | 2 where x == 0, else 1]: one PROD
 * allreduce of it gives the product of the non-zero inputs and 2^(number of
 * zero inputs) (exact; in float it overflows to inf beyond 127 zeros, which
 * still reads as "two or more"). */
template <class T>
static __global__ void prod_pair_kernel(const T *x, T *pair, size_t n) {
  GRID_STRIDE(k, n) {
    T v = x[k];
    pair[k] = v == T(0) ? T(1) : v;
    pair[n + k] = v == T(0) ? T(2) : T(1);
  }
}

/* d(product over ranks)/dx for this rank's input x, from the product of the
 * non-zero inputs pv and z2 = 2^(number of zero inputs): exact with zeros,
 * never NaN from a zero (as prod_deriv in comm_internal.h). */
static __device__ double prod_deriv_z2(double x, double pv, double z2) {
  if (z2 == 1.0) /* no zero input */
    return x != 0.0 ? pv / x : 0.0;
  if (z2 == 2.0 && x == 0.0) /* this rank's input is the only zero */
    return pv;
  return 0.0;
}

/* term[k] = dy/dx * xd[k] (xd NULL: 0), in double, rounded once; then
 * out[k] (NULL: not written) = +0 where some input is zero, else pv.  x may
 * be out (in place): x[k] is read before out[k] is written. */
template <class T>
static __global__ void prod_term_kernel(const T *x, const T *xd, const T *pair,
                                        T *term, T *out, size_t n) {
  GRID_STRIDE(k, n) {
    double pv = (double)pair[k], z2 = (double)pair[n + k];
    double g = 0.0;
    if (xd) {
      double d = prod_deriv_z2((double)x[k], pv, z2);
      g = d != 0.0 ? d * (double)xd[k] : 0.0;
    }
    term[k] = (T)g;
    if (out)
      out[k] = z2 > 1.0 ? T(0) : pair[k];
  }
}

/* cand = this rank where its input equals the extreme m, else INT_MAX. */
template <class T>
static __global__ void owner_cand_kernel(const T *x, const T *m, int32_t *cand,
                                         int rank, size_t n) {
  GRID_STRIDE(k, n) { cand[k] = x[k] == m[k] ? rank : INT_MAX; }
}

/* term = xd where this rank is the lowest holder of the extreme, else 0
 * (xd NULL: 0); out (NULL: not written) = the extreme. */
template <class T>
static __global__ void owner_term_kernel(const int32_t *cand, int rank,
                                         const T *xd, const T *m, T *term,
                                         T *out, size_t n) {
  GRID_STRIDE(k, n) {
    term[k] = xd && cand[k] == rank ? xd[k] : T(0);
    if (out)
      out[k] = m[k];
  }
}

/* ------------------------------------------------------------------------- */
/* Launchers (on the given stream, checked)                                  */
/* ------------------------------------------------------------------------- */

static int grid(size_t n) {
  return mpiad_gpu_blocks(n > (size_t)LONG_MAX ? LONG_MAX : (long)n);
}

template <class T>
static mpiad_result_t launch_prod_pair(const void *x, void *pair, size_t n,
                                       cudaStream_t st) {
  prod_pair_kernel<T>
      <<<grid(n), MPIAD_GPU_THREADS, 0, st>>>((const T *)x, (T *)pair, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_prod_term(const void *x, const void *xd,
                                       const void *pair, void *term, void *out,
                                       size_t n, cudaStream_t st) {
  prod_term_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      (const T *)x, (const T *)xd, (const T *)pair, (T *)term, (T *)out, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t launch_owner_cand(const void *x, const void *m,
                                        int32_t *cand, int rank, size_t n,
                                        cudaStream_t st) {
  owner_cand_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      (const T *)x, (const T *)m, cand, rank, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

template <class T>
static mpiad_result_t
launch_owner_term(const int32_t *cand, int rank, const void *xd, const void *m,
                  void *term, void *out, size_t n, cudaStream_t st) {
  owner_term_kernel<T><<<grid(n), MPIAD_GPU_THREADS, 0, st>>>(
      cand, rank, (const T *)xd, (const T *)m, (T *)term, (T *)out, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

/* Element-kind dispatch of the launchers above. */
#define DISPATCH(e, fn, ...)                                                   \
  ((e) == E_F64 ? fn<double>(__VA_ARGS__) : fn<float>(__VA_ARGS__))

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------- */

static mpiad_result_t check_tc(const char *fn, MPI_Datatype t, int count,
                               int *e) {
  if (!elem_of(t, e))
    GPU_ARG_ERROR("%s: datatype must be MPI_DOUBLE or MPI_FLOAT", fn);
  if (count < 0)
    GPU_ARG_ERROR("%s: negative count %d", fn, count);
  return MPIAD_SUCCESS;
}

static mpiad_result_t sync(mpiad_gpu_state *s) {
  GPU_TRY_CUDA(cudaStreamSynchronize(s->stream));
  return MPIAD_SUCCESS;
}

/* The sum over ranks of the tangent terms `in` (n elements; NULL: zeros):
 * into out on every rank (root < 0: allreduce) or at the root (reduce; out
 * is ignored elsewhere); out NULL: received into scratch and discarded.
 * in == out: in place.  tmp: n elements of scratch (may be `in` itself when
 * `in` is scratch). */
static mpiad_result_t sum_tangent(mpiad_gpu_state *s, const void *in, void *out,
                                  void *tmp, size_t n, int e, int root) {
  int receives = root < 0 || s->rank == root;
  if (!in) {
    GPU_TRY(mpiad_gpu_impl_zero(tmp, n, e, s->stream));
    in = tmp;
  }
  void *dst = receives ? (out ? out : tmp) : NULL;
  if (root < 0)
    return mpiad_gpu_impl_allreduce(s, in, dst, n, e, R_SUM);
  return mpiad_gpu_impl_reduce(s, in, dst, n, e, R_SUM, root);
}

/* ------------------------------------------------------------------------- */
/* Allreduce / Reduce                                                        */
/* ------------------------------------------------------------------------- */

/* Allreduce (root < 0) or Reduce to root: the primal and the tangent. */
static mpiad_result_t reduce_tan_common(const char *fn, const void *send,
                                        const void *send_d, void *recv,
                                        void *recv_d, int count,
                                        MPI_Datatype datatype, MPI_Op op,
                                        int root, MPI_Comm comm) {
  int e = 0, r = 0, rank = 0, size = 0;
  GPU_TRY(check_tc(fn, datatype, count, &e));
  if (!redop_of(op, &r))
    GPU_ARG_ERROR("%s: op must be MPI_SUM, MPI_PROD, MPI_MAX or MPI_MIN", fn);
  if (comm == MPI_COMM_NULL)
    GPU_ARG_ERROR("%s: MPI_COMM_NULL", fn);
  GPU_TRY_MPI(MPI_Comm_rank(comm, &rank));
  GPU_TRY_MPI(MPI_Comm_size(comm, &size));
  if (root >= size)
    GPU_ARG_ERROR("%s: root %d is not a rank of the communicator", fn, root);
  int is_root = root < 0 || rank == root; /* receives the result */
  int in_place = send == MPI_IN_PLACE;
  if (in_place && !is_root)
    GPU_ARG_ERROR("%s: MPI_IN_PLACE is only allowed at the root", fn);
  if (count > 0 && (!send || (is_root && !recv)))
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  /* The tangent's send side mirrors the primal's: MPI_IN_PLACE exactly when
   * the primal is in place (NULL allowed: no derivative on this rank). */
  if (send_d == MPI_IN_PLACE && !in_place)
    GPU_ARG_ERROR("%s: send_d is MPI_IN_PLACE but send is not", fn);
  if (in_place && send_d != MPI_IN_PLACE && send_d != NULL)
    GPU_ARG_ERROR("%s: send is MPI_IN_PLACE: send_d must be MPI_IN_PLACE or "
                  "NULL",
                  fn);
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  if (count == 0)
    return MPIAD_SUCCESS;
  if (!is_root)
    recv_d = NULL; /* not written on the other ranks of a Reduce */
  size_t n = (size_t)count, esz = elem_size(e);
  const void *x = in_place ? recv : send;
  const void *xd = in_place ? recv_d : send_d; /* NULL: zero tangent */
  void *out = is_root ? recv : NULL;

  if (r == R_SUM) {
    void *tmp = NULL;
    GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * esz, &tmp, 0, NULL, 0,
                                  NULL, 0, NULL));
    if (root < 0)
      GPU_TRY(mpiad_gpu_impl_allreduce(s, x, recv, n, e, R_SUM));
    else
      GPU_TRY(mpiad_gpu_impl_reduce(s, x, out, n, e, R_SUM, root));
    GPU_TRY(sum_tangent(s, xd, recv_d, tmp, n, e, root));
    return sync(s);
  }

  void *term;
  if (r == R_PROD) {
    /* One PROD allreduce of [x or 1 | 2 or 1]: every rank gets the product
     * of the non-zero inputs and 2^(number of zeros). */
    void *pair;
    GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, 2 * n * esz, &pair, n * esz,
                                  &term, 0, NULL, 0, NULL));
    GPU_TRY(DISPATCH(e, launch_prod_pair, x, pair, n, s->stream));
    GPU_TRY(mpiad_gpu_impl_allreduce(s, pair, pair, 2 * n, e, R_PROD));
    GPU_TRY(
        DISPATCH(e, launch_prod_term, x, xd, pair, term, out, n, s->stream));
  } else {
    /* The extreme, then the lowest rank holding it (a MIN allreduce of
     * candidate ranks). */
    void *m, *cand;
    GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, n * esz, &m,
                                  n * sizeof(int32_t), &cand, n * esz, &term, 0,
                                  NULL));
    GPU_TRY(mpiad_gpu_impl_allreduce(s, x, m, n, e, r));
    GPU_TRY(DISPATCH(e, launch_owner_cand, x, m, (int32_t *)cand, s->rank, n,
                     s->stream));
    GPU_TRY(mpiad_gpu_impl_allreduce(s, cand, cand, n, E_I32, R_MIN));
    GPU_TRY(DISPATCH(e, launch_owner_term, (const int32_t *)cand, s->rank, xd,
                     m, term, out, n, s->stream));
  }
  GPU_TRY(sum_tangent(s, term, recv_d, term, n, e, root));
  return sync(s);
}

extern "C" mpiad_result_t
mpiad_gpu_allreduce_tan(const void *send, const void *send_d, void *recv,
                        void *recv_d, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  return reduce_tan_common("mpiad_gpu_allreduce_tan", send, send_d, recv,
                           recv_d, count, datatype, op, -1, comm);
}

extern "C" mpiad_result_t mpiad_gpu_reduce_tan(const void *send,
                                               const void *send_d, void *recv,
                                               void *recv_d, int count,
                                               MPI_Datatype datatype, MPI_Op op,
                                               int root, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_reduce_tan";
  if (root < 0)
    GPU_ARG_ERROR("%s: root %d is not a rank of the communicator", fn, root);
  return reduce_tan_common(fn, send, send_d, recv, recv_d, count, datatype, op,
                           root, comm);
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

/* Type and count of one side of a packed message. */
static mpiad_result_t check_p2p(const char *fn, MPI_Datatype t, int count,
                                const void *buf, int *e) {
  GPU_TRY(check_tc(fn, t, count, e));
  if (count > INT_MAX / 2)
    GPU_ARG_ERROR("%s: count %d is above INT_MAX / 2 (the message is packed "
                  "[primal | tangent])",
                  fn, count);
  if (count > 0 && !buf)
    GPU_ARG_ERROR("%s: NULL buffer", fn);
  return MPIAD_SUCCESS;
}

/* p = [buf | buf_d] (n elements each; buf_d NULL: zeros). */
static mpiad_result_t pack2(mpiad_gpu_state *s, void *p, const void *buf,
                            const void *buf_d, size_t n, int e) {
  if (n == 0)
    return MPIAD_SUCCESS;
  GPU_TRY(mpiad_gpu_impl_copy(p, buf, n, e, s->stream));
  if (buf_d)
    GPU_TRY(mpiad_gpu_impl_copy(elem_at(p, n, e), buf_d, n, e, s->stream));
  else
    GPU_TRY(mpiad_gpu_impl_zero(elem_at(p, n, e), n, e, s->stream));
  return MPIAD_SUCCESS;
}

/* After a receive of a packed message into p (status st): splits it into
 * buf[0..m) and buf_d[0..m) (NULL: discarded), m half the elements received,
 * synchronises, and fills the user status with the primal's count m. */
static mpiad_result_t unpack2(const char *fn, mpiad_gpu_state *s,
                              const MPI_Status *st, const void *p, void *buf,
                              void *buf_d, int count, int e,
                              MPI_Status *status) {
  int m2 = 0;
  GPU_TRY_MPI(MPI_Get_count(st, elem_mpi(e), &m2));
  if (m2 == MPI_UNDEFINED || m2 % 2 != 0 || m2 / 2 > count)
    GPU_ARG_ERROR("%s: received %d elements: not a [primal | tangent] "
                  "message of at most %d elements each (both sides must use "
                  "the tangent helpers)",
                  fn, m2, count);
  size_t m = (size_t)(m2 / 2);
  GPU_TRY(mpiad_gpu_impl_copy(buf, p, m, e, s->stream));
  GPU_TRY(mpiad_gpu_impl_copy(buf_d, elem_at(p, m, e), m, e, s->stream));
  GPU_TRY(sync(s));
  if (status != MPI_STATUS_IGNORE) {
    *status = *st;
    GPU_TRY_MPI(MPI_Status_set_elements(status, elem_mpi(e), m2 / 2));
  }
  return MPIAD_SUCCESS;
}

extern "C" mpiad_result_t mpiad_gpu_send_tan(const void *buf, const void *buf_d,
                                             int count, MPI_Datatype datatype,
                                             int dest, int tag, MPI_Comm comm) {
  const char *fn = "mpiad_gpu_send_tan";
  int e = 0;
  GPU_TRY(check_p2p(fn, datatype, count, buf, &e));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  if (dest == MPI_PROC_NULL)
    return MPIAD_SUCCESS;
  size_t n = (size_t)count;
  void *p;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, 2 * n * elem_size(e), &p, 0,
                                NULL, 0, NULL, 0, NULL));
  GPU_TRY(pack2(s, p, buf, buf_d, n, e));
  return mpiad_gpu_impl_send(s, p, 2 * n, e, dest, tag, 0);
}

extern "C" mpiad_result_t mpiad_gpu_recv_tan(void *buf, void *buf_d, int count,
                                             MPI_Datatype datatype, int source,
                                             int tag, MPI_Comm comm,
                                             MPI_Status *status) {
  const char *fn = "mpiad_gpu_recv_tan";
  int e = 0;
  GPU_TRY(check_p2p(fn, datatype, count, buf, &e));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)count;
  void *p;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, 2 * n * elem_size(e), &p, 0,
                                NULL, 0, NULL, 0, NULL));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_recv(s, p, 2 * n, e, source, tag, 0, &st));
  return unpack2(fn, s, &st, p, buf, buf_d, count, e, status);
}

extern "C" mpiad_result_t
mpiad_gpu_sendrecv_tan(const void *sendbuf, const void *send_d, int sendcount,
                       MPI_Datatype sendtype, int dest, int sendtag,
                       void *recvbuf, void *recv_d, int recvcount,
                       MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv_tan";
  int se = 0, re = 0;
  GPU_TRY(check_p2p(fn, sendtype, sendcount, sendbuf, &se));
  GPU_TRY(check_p2p(fn, recvtype, recvcount, recvbuf, &re));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t sn = (size_t)sendcount, rn = (size_t)recvcount;
  void *ps, *pr;
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, 2 * sn * elem_size(se), &ps,
                                2 * rn * elem_size(re), &pr, 0, NULL, 0, NULL));
  if (dest != MPI_PROC_NULL)
    GPU_TRY(pack2(s, ps, sendbuf, send_d, sn, se));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, ps, 2 * sn, se, dest, sendtag, pr, 2 * rn,
                                  re, source, recvtag, 0, &st));
  return unpack2(fn, s, &st, pr, recvbuf, recv_d, recvcount, re, status);
}

extern "C" mpiad_result_t mpiad_gpu_sendrecv_replace_tan(
    void *buf, void *buf_d, int count, MPI_Datatype datatype, int dest,
    int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  const char *fn = "mpiad_gpu_sendrecv_replace_tan";
  int e = 0;
  GPU_TRY(check_p2p(fn, datatype, count, buf, &e));
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(comm, &s));
  size_t n = (size_t)count;
  void *ps, *pr;
  /* Separate regions for the outgoing and the incoming message. */
  GPU_TRY(mpiad_gpu_impl_dcarve(SCRATCH_HELPER, 2 * n * elem_size(e), &ps,
                                2 * n * elem_size(e), &pr, 0, NULL, 0, NULL));
  if (dest != MPI_PROC_NULL)
    GPU_TRY(pack2(s, ps, buf, buf_d, n, e));
  MPI_Status st;
  GPU_TRY(mpiad_gpu_impl_sendrecv(s, ps, 2 * n, e, dest, sendtag, pr, 2 * n, e,
                                  source, recvtag, 0, &st));
  return unpack2(fn, s, &st, pr, buf, buf_d, count, e, status);
}
