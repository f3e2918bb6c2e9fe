/*
 * nccl.cu - the helpers of rules/nccl.rules: forward (recording), reverse and
 * tangent versions of the NCCL collectives written by the user, on the user's
 * NCCL communicator and stream (contract in mpiad_gpu_nccl.h).  They mirror
 * the MPI helpers of adjoint_comm.c / tangent_comm.c and adjoint.cu: PROD
 * exact with zeros, MAX/MIN routed to the lowest rank holding the extreme.
 *
 * This file uses only the public CUDA runtime, NCCL and mpiad_gpu.h, so that
 * the CPU emulator of the tests (test/lit/Inputs/cuda_emu, with its NCCL over
 * MPI) compiles and runs it too: every launch is written on one line as
 * `kernel<<<grid, MPIAD_GPU_THREADS, 0, stream>>>(...)`, and the kernels are
 * not templates (the element type is a flag).
 */
#include "mpiad_gpu.h"
#include "mpiad_gpu_nccl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

/* ------------------------------------------------------------------------- */
/* Errors                                                                    */
/* ------------------------------------------------------------------------- */

[[noreturn]] void fatal(const char *fn, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "mpiad_gpu: %s: ", fn);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  fflush(stderr);
  va_end(ap);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down)
    MPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

#define TRY_NCCL(fn, call)                                                     \
  do {                                                                         \
    ncclResult_t try_r_ = (call);                                              \
    if (try_r_ != ncclSuccess)                                                 \
      fatal(fn, "%s failed: %s", #call, ncclGetErrorString(try_r_));          \
  } while (0)

#define TRY_CUDA(fn, call)                                                     \
  do {                                                                         \
    cudaError_t try_e_ = (call);                                               \
    if (try_e_ != cudaSuccess)                                                 \
      fatal(fn, "%s failed: %s", #call, cudaGetErrorString(try_e_));          \
  } while (0)

/* ------------------------------------------------------------------------- */
/* Element types and operations                                              */
/* ------------------------------------------------------------------------- */

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_AVG };

/* 1 for float, 0 for double; aborts on any other datatype. */
int is_f32(const char *fn, ncclDataType_t dt) {
  if (dt == ncclFloat64)
    return 0;
  if (dt == ncclFloat32)
    return 1;
  fatal(fn, "datatype must be ncclDouble (ncclFloat64) or ncclFloat "
            "(ncclFloat32)");
}

size_t esize(int f32) { return f32 ? sizeof(float) : sizeof(double); }

int op_of(const char *fn, ncclRedOp_t op) {
  if (op == ncclSum)
    return OP_SUM;
  if (op == ncclProd)
    return OP_PROD;
  if (op == ncclMax)
    return OP_MAX;
  if (op == ncclMin)
    return OP_MIN;
  if (op == ncclAvg)
    return OP_AVG;
  fatal(fn, "op must be ncclSum, ncclProd, ncclMax, ncclMin or ncclAvg");
}

const char *op_name(int op) {
  static const char *n[] = {"ncclSum", "ncclProd", "ncclMax", "ncclMin",
                            "ncclAvg"};
  return n[op];
}

int comm_size(const char *fn, ncclComm_t comm) {
  int n = 0;
  TRY_NCCL(fn, ncclCommCount(comm, &n));
  return n;
}

int comm_rank(const char *fn, ncclComm_t comm) {
  int r = 0;
  TRY_NCCL(fn, ncclCommUserRank(comm, &r));
  return r;
}

void *at(void *p, size_t k, int f32) {
  return p ? (unsigned char *)p + k * esize(f32) : NULL;
}

/* ------------------------------------------------------------------------- */
/* Kernels (element type: f32 ? float : double)                              */
/* ------------------------------------------------------------------------- */

#define GRID_STRIDE(k, n)                                                      \
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < (n);      \
       k += (size_t)gridDim.x * blockDim.x)

__device__ double ld(const void *p, size_t k, int f32) {
  return f32 ? (double)((const float *)p)[k] : ((const double *)p)[k];
}

__device__ void st(void *p, size_t k, int f32, double v) {
  if (f32)
    ((float *)p)[k] = (float)v;
  else
    ((double *)p)[k] = v;
}

/* The derivative of the product over ranks with respect to this rank's
 * input x: the product of the other ranks' inputs, exact with zeros, never
 * NaN from a zero (as prod_deriv in comm_internal.h and adjoint.cu). */
__device__ double prod_deriv(double x, double prod_nonzero,
                             double zero_count) {
  if (zero_count == 0.0)
    return x != 0.0 ? prod_nonzero / x : 0.0;
  if (zero_count == 1.0 && x == 0.0)
    return prod_nonzero;
  return 0.0;
}

/* rec = [x | x, or 1 where x == 0 | 1 where x == 0, else 0]. */
__global__ void prod_prepare_kernel(const void *x, void *rec, size_t n,
                                    int f32) {
  GRID_STRIDE(k, n) {
    double v = ld(x, k, f32);
    st(rec, k, f32, v);
    st(rec, n + k, f32, v == 0.0 ? 1.0 : v);
    st(rec, 2 * n + k, f32, v == 0.0 ? 1.0 : 0.0);
  }
}

/* out = +0 where some input was zero, else the product of the inputs. */
__global__ void prod_result_kernel(void *out, const void *rec, size_t n,
                                   int f32) {
  GRID_STRIDE(k, n) {
    st(out, k, f32, ld(rec, 2 * n + k, f32) > 0.0 ? 0.0 : ld(rec, n + k, f32));
  }
}

/* cand = this rank where its input equals the extreme, else INT_MAX. */
__global__ void owner_cand_kernel(const void *x, const void *m, int32_t *cand,
                                  int rank, size_t n, int f32) {
  GRID_STRIDE(k, n) { cand[k] = ld(x, k, f32) == ld(m, k, f32) ? rank : INT_MAX; }
}

/* flags = (the lowest holder is this rank); out (if any) = the extreme. */
__global__ void owner_flags_kernel(const int32_t *cand, int rank,
                                   unsigned char *flags, const void *m,
                                   void *out, size_t n, int f32) {
  GRID_STRIDE(k, n) {
    flags[k] = cand[k] == rank ? 1 : 0;
    if (out)
      st(out, k, f32, ld(m, k, f32));
  }
}

/* dst[k] = (overwrite ? 0 : dst[k]) + y[k] * d_k * scale, d_k the derivative
 * of the reduction op with respect to this rank's input (rec: the PROD
 * record or the MAX/MIN flags; unused for SUM/AVG). */
__global__ void contrib_kernel(int op, void *dst, const void *y,
                               const void *rec, size_t n, int f32,
                               int overwrite, double scale) {
  GRID_STRIDE(k, n) {
    double d;
    if (op == OP_PROD)
      d = prod_deriv(ld(rec, k, f32), ld(rec, n + k, f32),
                     ld(rec, 2 * n + k, f32));
    else if (op == OP_MAX || op == OP_MIN)
      d = ((const unsigned char *)rec)[k] ? 1.0 : 0.0;
    else
      d = 1.0;
    double g = d != 0.0 ? ld(y, k, f32) * d * scale : 0.0;
    st(dst, k, f32, (overwrite ? 0.0 : ld(dst, k, f32)) + g);
  }
}

int grid(size_t n) {
  return mpiad_gpu_blocks(n > (size_t)LONG_MAX ? LONG_MAX : (long)n);
}

void launch_contrib(const char *fn, int op, void *dst, const void *y,
                    const void *rec, size_t n, int f32, int overwrite,
                    double scale, cudaStream_t s) {
  if (n == 0 || !dst)
    return;
  contrib_kernel<<<grid(n), MPIAD_GPU_THREADS, 0, s>>>(op, dst, y, rec, n, f32, overwrite, scale);
  TRY_CUDA(fn, cudaGetLastError());
}

void zero(const char *fn, void *p, size_t n, int f32, cudaStream_t s) {
  if (p && n)
    TRY_CUDA(fn, cudaMemsetAsync(p, 0, n * esize(f32), s));
}

/* ------------------------------------------------------------------------- */
/* Device scratch and the record stack                                       */
/* ------------------------------------------------------------------------- */

/* One device buffer that grows, reused by every helper: a helper on another
 * stream than the previous user first waits for that stream. */
struct Scratch {
  void *p = NULL;
  size_t cap = 0;
  cudaStream_t last = NULL;
  bool used = false;
};
Scratch g_scratch;

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* Carves the scratch into regions of the given byte sizes (0: NULL). */
void scratch(const char *fn, cudaStream_t s, size_t b0, void **r0,
             size_t b1 = 0, void **r1 = NULL, size_t b2 = 0,
             void **r2 = NULL) {
  size_t need = align256(b0) + align256(b1) + align256(b2);
  if (g_scratch.used && g_scratch.last != s)
    TRY_CUDA(fn, cudaStreamSynchronize(g_scratch.last));
  if (need > g_scratch.cap) {
    if (g_scratch.p)
      TRY_CUDA(fn, cudaFree(g_scratch.p));
    g_scratch.p = NULL;
    g_scratch.cap = 0;
    size_t cap = need < 4096 ? 4096 : need + need / 2;
    TRY_CUDA(fn, cudaMalloc(&g_scratch.p, cap));
    g_scratch.cap = cap;
  }
  g_scratch.last = s;
  g_scratch.used = true;
  unsigned char *base = (unsigned char *)g_scratch.p;
  size_t b[3] = {b0, b1, b2};
  void **r[3] = {r0, r1, r2};
  for (int i = 0; i < 3; ++i) {
    if (r[i])
      *r[i] = b[i] ? base : NULL;
    base += align256(b[i]);
  }
}

/* A zeroed scratch region of n elements where p is NULL, else p. */
const void *or_zeros(const char *fn, const void *p, void *zeros, size_t n,
                     int f32, cudaStream_t s) {
  if (p)
    return p;
  zero(fn, zeros, n, f32, s);
  return zeros;
}

enum {
  R_ALLREDUCE = 1,
  R_REDUCE,
  R_BROADCAST,
  R_ALLGATHER,
  R_REDUCESCATTER,
  R_SEND,
  R_RECV
};
const char *rec_name(int w) {
  static const char *n[] = {"",
                            "ncclAllReduce",
                            "ncclReduce",
                            "ncclBroadcast",
                            "ncclAllGather",
                            "ncclReduceScatter",
                            "ncclSend",
                            "ncclRecv"};
  return n[w];
}

/* A record: the call's signature and a device region (kept, with its
 * capacity, for the next push at the same depth). */
struct Record {
  int what, op, f32, peer;
  size_t count;
  void *region;
  size_t cap;
  cudaStream_t stream;
};
Record *g_rec = NULL;
size_t g_depth = 0, g_slots = 0;

void *record_push(const char *fn, int what, int op, int f32, size_t count,
                  size_t bytes, cudaStream_t s) {
  if (g_depth == g_slots) {
    size_t n = g_slots ? 2 * g_slots : 16;
    Record *r = (Record *)realloc(g_rec, n * sizeof(Record));
    if (!r)
      fatal(fn, "out of host memory for the record stack");
    for (size_t i = g_slots; i < n; ++i)
      r[i] = Record{0, 0, 0, 0, 0, NULL, 0, NULL};
    g_rec = r;
    g_slots = n;
  }
  Record &r = g_rec[g_depth++];
  /* The region's previous user (a reverse on another stream) may still run. */
  if (r.region && r.stream != s)
    TRY_CUDA(fn, cudaStreamSynchronize(r.stream));
  if (bytes > r.cap) {
    if (r.region)
      TRY_CUDA(fn, cudaFree(r.region));
    r.region = NULL;
    r.cap = 0;
    TRY_CUDA(fn, cudaMalloc(&r.region, bytes));
    r.cap = bytes;
  }
  r.what = what;
  r.op = op;
  r.f32 = f32;
  r.peer = -1;
  r.count = count;
  r.stream = s;
  return r.region;
}

void *record_pop(const char *fn, int what, int op, int f32, size_t count,
                 cudaStream_t s) {
  if (g_depth == 0)
    fatal(fn, "no record to reverse: each %s must reverse a %s of the "
              "forward sweep, in the reverse order",
          fn, rec_name(what));
  Record &r = g_rec[g_depth - 1];
  if (r.what != what || r.op != op || r.f32 != f32 || r.count != count)
    fatal(fn, "the record on top is a %s (%s, %s, count %zu), not a %s (%s, "
              "%s, count %zu): the reverse sweep must call the helpers in "
              "the reverse order of the forward sweep",
          rec_name(r.what), op_name(r.op), r.f32 ? "float" : "double",
          r.count, rec_name(what), op_name(op), f32 ? "float" : "double",
          count);
  --g_depth;
  r.stream = s; /* the reverse uses the region on its own stream */
  return r.region;
}

/* The peer recorded by the last record_pop (point to point). */
int popped_peer(void) { return g_rec[g_depth].peer; }

/* --- Groups of point-to-point calls ---------------------------------------- */
/* The reverse (and tangent) of a group is a group opened by these helpers.
 * Buffers that must live until the group is launched at its end (zeros sent
 * for a missing adjoint, adjoints received) come from a pool of device
 * buffers, the k-th of a group reused by the k-th of the next; what the
 * reverse does with what it received is deferred to the group's end. */

struct PoolBuf {
  void *p;
  size_t cap;
  cudaStream_t stream;
};
PoolBuf *g_pool = NULL;
size_t g_pool_used = 0, g_pool_slots = 0;
int g_group = 0; /* depth of the groups these helpers opened */

void *pool_get(const char *fn, size_t bytes, cudaStream_t s) {
  if (g_group == 0)
    fatal(fn, "called outside a group: ncclSend and ncclRecv that carry "
              "derivatives must be between ncclGroupStart() and "
              "ncclGroupEnd()");
  if (g_pool_used == g_pool_slots) {
    size_t n = g_pool_slots ? 2 * g_pool_slots : 16;
    PoolBuf *p = (PoolBuf *)realloc(g_pool, n * sizeof(PoolBuf));
    if (!p)
      fatal(fn, "out of host memory for the group buffers");
    for (size_t i = g_pool_slots; i < n; ++i)
      p[i] = PoolBuf{NULL, 0, NULL};
    g_pool = p;
    g_pool_slots = n;
  }
  PoolBuf &b = g_pool[g_pool_used++];
  if (b.p && b.stream != s)
    TRY_CUDA(fn, cudaStreamSynchronize(b.stream));
  if (bytes > b.cap) {
    if (b.p)
      TRY_CUDA(fn, cudaFree(b.p));
    b.p = NULL;
    b.cap = 0;
    TRY_CUDA(fn, cudaMalloc(&b.p, bytes ? bytes : 1));
    b.cap = bytes;
  }
  b.stream = s;
  return b.p;
}

/* What the reverse of a group does once the group is launched: dst += src
 * (src != NULL) or dst = 0, n elements, on stream s. */
struct Deferred {
  void *dst;
  const void *src;
  size_t n;
  int f32;
  cudaStream_t s;
};
Deferred *g_defer = NULL;
size_t g_ndefer = 0, g_defer_cap = 0;

void defer(const char *fn, void *dst, const void *src, size_t n, int f32,
           cudaStream_t s) {
  if (!dst || n == 0)
    return;
  if (g_ndefer == g_defer_cap) {
    size_t c = g_defer_cap ? 2 * g_defer_cap : 16;
    Deferred *d = (Deferred *)realloc(g_defer, c * sizeof(Deferred));
    if (!d)
      fatal(fn, "out of host memory for the group's deferred work");
    g_defer = d;
    g_defer_cap = c;
  }
  g_defer[g_ndefer++] = Deferred{dst, src, n, f32, s};
}

void group_open(const char *fn) {
  TRY_NCCL(fn, ncclGroupStart());
  if (g_group++ == 0)
    g_pool_used = 0;
}

/* Closes a group; at the outermost, runs the deferred work: zeroes first
 * (the adjoints of received buffers), then the accumulations. */
void group_close(const char *fn) {
  if (g_group == 0)
    fatal(fn, "no group of the reverse sweep (or tangent) is open");
  TRY_NCCL(fn, ncclGroupEnd());
  if (--g_group > 0)
    return;
  for (size_t i = 0; i < g_ndefer; ++i)
    if (!g_defer[i].src)
      zero(fn, g_defer[i].dst, g_defer[i].n, g_defer[i].f32, g_defer[i].s);
  for (size_t i = 0; i < g_ndefer; ++i)
    if (g_defer[i].src)
      launch_contrib(fn, OP_SUM, g_defer[i].dst, g_defer[i].src, NULL,
                     g_defer[i].n, g_defer[i].f32, 0, 1.0, g_defer[i].s);
  g_ndefer = 0;
}

/* ------------------------------------------------------------------------- */
/* PROD and MAX/MIN: the values and the derivative data                      */
/* ------------------------------------------------------------------------- */

/* rec (3 n elements) = [x | pv | zc] reduced over ranks; out (NULL: not
 * written) = the product, +0 where some input is zero. */
void prod_values(const char *fn, const void *x, void *rec, void *out,
                 size_t n, int f32, ncclComm_t c, cudaStream_t s) {
  if (n == 0)
    return;
  ncclDataType_t dt = f32 ? ncclFloat32 : ncclFloat64;
  prod_prepare_kernel<<<grid(n), MPIAD_GPU_THREADS, 0, s>>>(x, rec, n, f32);
  TRY_CUDA(fn, cudaGetLastError());
  void *pv = at(rec, n, f32), *zc = at(rec, 2 * n, f32);
  TRY_NCCL(fn, ncclAllReduce(pv, pv, n, dt, ncclProd, c, s));
  TRY_NCCL(fn, ncclAllReduce(zc, zc, n, dt, ncclSum, c, s));
  if (out) {
    prod_result_kernel<<<grid(n), MPIAD_GPU_THREADS, 0, s>>>(out, rec, n, f32);
    TRY_CUDA(fn, cudaGetLastError());
  }
}

/* flags (n bytes) = 1 where this rank is the lowest holding the extreme of
 * op; out (NULL: not written) = the extreme. */
void extreme_values(const char *fn, int op, const void *x, unsigned char *flags,
                    void *out, size_t n, int f32, ncclComm_t c,
                    cudaStream_t s) {
  if (n == 0)
    return;
  ncclDataType_t dt = f32 ? ncclFloat32 : ncclFloat64;
  int rank = comm_rank(fn, c);
  void *m, *cand;
  scratch(fn, s, n * esize(f32), &m, n * sizeof(int32_t), &cand);
  TRY_NCCL(fn, ncclAllReduce(x, m, n, dt, op == OP_MAX ? ncclMax : ncclMin, c, s));
  owner_cand_kernel<<<grid(n), MPIAD_GPU_THREADS, 0, s>>>(x, m, (int32_t *)cand, rank, n, f32);
  TRY_CUDA(fn, cudaGetLastError());
  TRY_NCCL(fn, ncclAllReduce(cand, cand, n, ncclInt32, ncclMin, c, s));
  owner_flags_kernel<<<grid(n), MPIAD_GPU_THREADS, 0, s>>>((const int32_t *)cand, rank, flags, m, out, n, f32);
  TRY_CUDA(fn, cudaGetLastError());
}

/* The record bytes of op for n elements. */
size_t record_bytes(int op, size_t n, int f32) {
  if (op == OP_PROD)
    return 3 * n * esize(f32);
  if (op == OP_MAX || op == OP_MIN)
    return n;
  return 0;
}

/* Forward of a reduction (what: allreduce or reduce): records, and writes
 * the result to out (NULL: not written). */
void reduction_forward(const char *fn, int what, int op, const void *x,
                       void *out, size_t n, int f32, ncclComm_t c,
                       cudaStream_t s) {
  void *rec = record_push(fn, what, op, f32, n, record_bytes(op, n, f32), s);
  if (op == OP_PROD)
    prod_values(fn, x, rec, out, n, f32, c, s);
  else
    extreme_values(fn, op, x, (unsigned char *)rec, out, n, f32, c, s);
}

/* The tangent of a reduction: t (scratch) = the local term d * x_d, summed
 * over ranks into recv_d (allreduce, or reduce to root >= 0).  out: the
 * primal result (NULL: not written). */
void reduction_tangent(const char *fn, int op, const void *x, const void *x_d,
                       void *out, void *recv_d, size_t n, int f32, int root,
                       ncclComm_t c, cudaStream_t s) {
  if (n == 0)
    return;
  ncclDataType_t dt = f32 ? ncclFloat32 : ncclFloat64;
  void *rec = record_push(fn, R_ALLREDUCE, op, f32, n, record_bytes(op, n, f32), s);
  if (op == OP_PROD)
    prod_values(fn, x, rec, out, n, f32, c, s);
  else
    extreme_values(fn, op, x, (unsigned char *)rec, out, n, f32, c, s);
  void *t, *sink;
  scratch(fn, s, n * esize(f32), &t, recv_d ? 0 : n * esize(f32), &sink);
  if (x_d)
    launch_contrib(fn, op, t, x_d, rec, n, f32, 1, 1.0, s);
  else
    zero(fn, t, n, f32, s);
  void *dst = recv_d ? recv_d : sink;
  if (root < 0)
    TRY_NCCL(fn, ncclAllReduce(t, dst, n, dt, ncclSum, c, s));
  else
    TRY_NCCL(fn, ncclReduce(t, dst, n, dt, ncclSum, root, c, s));
  record_pop(fn, R_ALLREDUCE, op, f32, n, s);
}

} // namespace

/* ------------------------------------------------------------------------- */
/* The helpers                                                               */
/* ------------------------------------------------------------------------- */

extern "C" int mpiad_gpu_nccl_size(ncclComm_t comm) {
  return comm_size("mpiad_gpu_nccl_size", comm);
}

extern "C" int mpiad_gpu_nccl_rank(ncclComm_t comm) {
  return comm_rank("mpiad_gpu_nccl_rank", comm);
}

extern "C" size_t mpiad_gpu_nccl_record_count(void) { return g_depth; }

/* --- AllReduce ------------------------------------------------------------ */

extern "C" ncclResult_t
mpiad_gpu_nccl_allreduce_fwd(const void *send, void *recv, size_t count,
                             ncclDataType_t dt, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_allreduce_fwd";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  if (o == OP_SUM || o == OP_AVG) {
    TRY_NCCL(fn, ncclAllReduce(send, recv, count, dt, op, comm, stream));
    record_push(fn, R_ALLREDUCE, o, f32, count, 0, stream);
    return ncclSuccess;
  }
  reduction_forward(fn, R_ALLREDUCE, o, send, recv, count, f32, comm, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_allreduce_rev(void *send_b, void *recv_b, size_t count,
                             ncclDataType_t dt, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream,
                             int partial) {
  const char *fn = "mpiad_gpu_nccl_allreduce_rev";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  size_t n = count;
  void *rec = record_pop(fn, R_ALLREDUCE, o, f32, n, stream);
  double scale = o == OP_AVG ? 1.0 / comm_size(fn, comm) : 1.0;
  if (partial && n) {
    void *zeros;
    scratch(fn, stream, recv_b ? 0 : n * esize(f32), &zeros);
    void *y = (void *)or_zeros(fn, recv_b, zeros, n, f32, stream);
    TRY_NCCL(fn, ncclAllReduce(y, y, n, dt, ncclSum, comm, stream));
  }
  if (!recv_b) /* the contributions are zero */
    return ncclSuccess;
  if (send_b == recv_b) { /* in place: recv_b = the contribution */
    launch_contrib(fn, o, recv_b, recv_b, rec, n, f32, 1, scale, stream);
  } else {
    launch_contrib(fn, o, send_b, recv_b, rec, n, f32, 0, scale, stream);
    zero(fn, recv_b, n, f32, stream);
  }
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_allreduce_tan(const void *send, const void *send_d, void *recv,
                             void *recv_d, size_t count, ncclDataType_t dt,
                             ncclRedOp_t op, ncclComm_t comm,
                             cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_allreduce_tan";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  size_t n = count;
  if (o == OP_SUM || o == OP_AVG) {
    void *zeros, *sink;
    scratch(fn, stream, send_d ? 0 : n * esize(f32), &zeros,
            recv_d ? 0 : n * esize(f32), &sink);
    /* the input tangent is read before the primal overwrites anything */
    const void *xd = or_zeros(fn, send_d, zeros, n, f32, stream);
    TRY_NCCL(fn, ncclAllReduce(send, recv, n, dt, op, comm, stream));
    TRY_NCCL(fn, ncclAllReduce(xd, recv_d ? recv_d : sink, n, dt, op, comm,
                               stream));
    return ncclSuccess;
  }
  reduction_tangent(fn, o, send, send_d, recv, recv_d, n, f32, -1, comm,
                    stream);
  return ncclSuccess;
}

/* --- Reduce --------------------------------------------------------------- */

extern "C" ncclResult_t mpiad_gpu_nccl_reduce_fwd(const void *send, void *recv,
                                                  size_t count,
                                                  ncclDataType_t dt,
                                                  ncclRedOp_t op, int root,
                                                  ncclComm_t comm,
                                                  cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reduce_fwd";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  if (o == OP_SUM || o == OP_AVG) {
    TRY_NCCL(fn, ncclReduce(send, recv, count, dt, op, root, comm, stream));
    record_push(fn, R_REDUCE, o, f32, count, 0, stream);
    return ncclSuccess;
  }
  void *out = comm_rank(fn, comm) == root ? recv : NULL;
  reduction_forward(fn, R_REDUCE, o, send, out, count, f32, comm, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_reduce_rev(void *send_b, void *recv_b,
                                                  size_t count,
                                                  ncclDataType_t dt,
                                                  ncclRedOp_t op, int root,
                                                  ncclComm_t comm,
                                                  cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reduce_rev";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  size_t n = count;
  void *rec = record_pop(fn, R_REDUCE, o, f32, n, stream);
  if (n == 0)
    return ncclSuccess;
  int is_root = comm_rank(fn, comm) == root;
  double scale = o == OP_AVG ? 1.0 / comm_size(fn, comm) : 1.0;
  void *y;
  scratch(fn, stream, n * esize(f32), &y);
  if (is_root && recv_b)
    TRY_CUDA(fn, cudaMemcpyAsync(y, recv_b, n * esize(f32),
                                 cudaMemcpyDeviceToDevice, stream));
  else
    zero(fn, y, n, f32, stream);
  TRY_NCCL(fn, ncclBroadcast(y, y, n, dt, root, comm, stream));
  int in_place = is_root && send_b == recv_b;
  if (is_root && !in_place)
    zero(fn, recv_b, n, f32, stream);
  launch_contrib(fn, o, send_b, y, rec, n, f32, in_place, scale, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_reduce_tan(const void *send, const void *send_d, void *recv,
                          void *recv_d, size_t count, ncclDataType_t dt,
                          ncclRedOp_t op, int root, ncclComm_t comm,
                          cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reduce_tan";
  int f32 = is_f32(fn, dt), o = op_of(fn, op);
  size_t n = count;
  int is_root = comm_rank(fn, comm) == root;
  if (o == OP_SUM || o == OP_AVG) {
    void *zeros, *sink;
    scratch(fn, stream, send_d ? 0 : n * esize(f32), &zeros,
            recv_d || !is_root ? 0 : n * esize(f32), &sink);
    const void *xd = or_zeros(fn, send_d, zeros, n, f32, stream);
    TRY_NCCL(fn, ncclReduce(send, recv, n, dt, op, root, comm, stream));
    TRY_NCCL(fn, ncclReduce(xd, recv_d ? recv_d : sink, n, dt, op, root, comm,
                            stream));
    return ncclSuccess;
  }
  reduction_tangent(fn, o, send, send_d, is_root ? recv : NULL,
                    is_root ? recv_d : NULL, n, f32, root, comm, stream);
  return ncclSuccess;
}

/* --- Broadcast ------------------------------------------------------------ */

extern "C" ncclResult_t
mpiad_gpu_nccl_broadcast_fwd(const void *send, void *recv, size_t count,
                             ncclDataType_t dt, int root, ncclComm_t comm,
                             cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_broadcast_fwd";
  int f32 = is_f32(fn, dt);
  TRY_NCCL(fn, ncclBroadcast(send, recv, count, dt, root, comm, stream));
  record_push(fn, R_BROADCAST, OP_SUM, f32, count, 0, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_broadcast_rev(void *send_b, void *recv_b, size_t count,
                             ncclDataType_t dt, int root, ncclComm_t comm,
                             cudaStream_t stream, int partial) {
  const char *fn = "mpiad_gpu_nccl_broadcast_rev";
  int f32 = is_f32(fn, dt);
  size_t n = count;
  record_pop(fn, R_BROADCAST, OP_SUM, f32, n, stream);
  if (n == 0)
    return ncclSuccess;
  int is_root = comm_rank(fn, comm) == root;
  void *y = recv_b;
  if (partial) {
    void *zeros;
    scratch(fn, stream, recv_b ? 0 : n * esize(f32), &zeros);
    y = (void *)or_zeros(fn, recv_b, zeros, n, f32, stream);
    /* the root gets the sum over ranks in y */
    TRY_NCCL(fn, ncclReduce(y, y, n, dt, ncclSum, root, comm, stream));
  }
  if (!is_root) {
    zero(fn, recv_b, n, f32, stream);
    return ncclSuccess;
  }
  if (send_b == recv_b || !y) /* in place: the root keeps it */
    return ncclSuccess;
  launch_contrib(fn, OP_SUM, send_b, y, NULL, n, f32, 0, 1.0, stream);
  zero(fn, recv_b, n, f32, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_broadcast_tan(const void *send, const void *send_d, void *recv,
                             void *recv_d, size_t count, ncclDataType_t dt,
                             int root, ncclComm_t comm, cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_broadcast_tan";
  int f32 = is_f32(fn, dt);
  size_t n = count;
  int is_root = comm_rank(fn, comm) == root;
  void *zeros, *sink;
  scratch(fn, stream, send_d || !is_root ? 0 : n * esize(f32), &zeros,
          recv_d ? 0 : n * esize(f32), &sink);
  const void *xd = is_root ? or_zeros(fn, send_d, zeros, n, f32, stream)
                           : send_d;
  TRY_NCCL(fn, ncclBroadcast(send, recv, n, dt, root, comm, stream));
  TRY_NCCL(fn, ncclBroadcast(xd, recv_d ? recv_d : sink, n, dt, root, comm,
                             stream));
  return ncclSuccess;
}

/* --- AllGather ------------------------------------------------------------ */

extern "C" ncclResult_t
mpiad_gpu_nccl_allgather_fwd(const void *send, void *recv, size_t sendcount,
                             ncclDataType_t dt, ncclComm_t comm,
                             cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_allgather_fwd";
  int f32 = is_f32(fn, dt);
  TRY_NCCL(fn, ncclAllGather(send, recv, sendcount, dt, comm, stream));
  record_push(fn, R_ALLGATHER, OP_SUM, f32, sendcount, 0, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_allgather_rev(void *send_b, void *recv_b, size_t sendcount,
                             ncclDataType_t dt, ncclComm_t comm,
                             cudaStream_t stream, int partial) {
  const char *fn = "mpiad_gpu_nccl_allgather_rev";
  int f32 = is_f32(fn, dt);
  size_t n = sendcount;
  record_pop(fn, R_ALLGATHER, OP_SUM, f32, n, stream);
  if (n == 0)
    return ncclSuccess;
  int size = comm_size(fn, comm), rank = comm_rank(fn, comm);
  void *block = at(recv_b, (size_t)rank * n, f32);
  void *t, *zeros;
  scratch(fn, stream, n * esize(f32), &t,
          partial && !recv_b ? (size_t)size * n * esize(f32) : 0, &zeros);
  if (partial) {
    const void *y = or_zeros(fn, recv_b, zeros, (size_t)size * n, f32, stream);
    TRY_NCCL(fn, ncclReduceScatter(y, t, n, dt, ncclSum, comm, stream));
  } else if (recv_b) {
    TRY_CUDA(fn, cudaMemcpyAsync(t, block, n * esize(f32),
                                 cudaMemcpyDeviceToDevice, stream));
  } else {
    return ncclSuccess; /* no adjoint here, no communication */
  }
  int in_place = recv_b && send_b == block;
  zero(fn, recv_b, (size_t)size * n, f32, stream);
  launch_contrib(fn, OP_SUM, in_place ? block : send_b, t, NULL, n, f32,
                 in_place, 1.0, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_allgather_tan(const void *send, const void *send_d, void *recv,
                             void *recv_d, size_t sendcount, ncclDataType_t dt,
                             ncclComm_t comm, cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_allgather_tan";
  int f32 = is_f32(fn, dt);
  size_t n = sendcount, all = (size_t)comm_size(fn, comm) * n;
  void *zeros, *sink;
  scratch(fn, stream, send_d ? 0 : n * esize(f32), &zeros,
          recv_d ? 0 : all * esize(f32), &sink);
  const void *xd = or_zeros(fn, send_d, zeros, n, f32, stream);
  TRY_NCCL(fn, ncclAllGather(send, recv, n, dt, comm, stream));
  TRY_NCCL(fn, ncclAllGather(xd, recv_d ? recv_d : sink, n, dt, comm, stream));
  return ncclSuccess;
}

/* --- ReduceScatter -------------------------------------------------------- */

static int sum_or_avg(const char *fn, ncclRedOp_t op) {
  int o = op_of(fn, op);
  if (o != OP_SUM && o != OP_AVG)
    fatal(fn, "op must be ncclSum or ncclAvg (%s has no derivative here)",
          op_name(o));
  return o;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_reducescatter_fwd(const void *send, void *recv,
                                 size_t recvcount, ncclDataType_t dt,
                                 ncclRedOp_t op, ncclComm_t comm,
                                 cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reducescatter_fwd";
  int f32 = is_f32(fn, dt), o = sum_or_avg(fn, op);
  TRY_NCCL(fn, ncclReduceScatter(send, recv, recvcount, dt, op, comm, stream));
  record_push(fn, R_REDUCESCATTER, o, f32, recvcount, 0, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t
mpiad_gpu_nccl_reducescatter_rev(void *send_b, void *recv_b, size_t recvcount,
                                 ncclDataType_t dt, ncclRedOp_t op,
                                 ncclComm_t comm, cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reducescatter_rev";
  int f32 = is_f32(fn, dt), o = sum_or_avg(fn, op);
  size_t n = recvcount;
  record_pop(fn, R_REDUCESCATTER, o, f32, n, stream);
  if (n == 0)
    return ncclSuccess;
  int size = comm_size(fn, comm), rank = comm_rank(fn, comm);
  size_t all = (size_t)size * n;
  void *t, *zeros;
  scratch(fn, stream, all * esize(f32), &t, recv_b ? 0 : n * esize(f32),
          &zeros);
  const void *y = or_zeros(fn, recv_b, zeros, n, f32, stream);
  TRY_NCCL(fn, ncclAllGather(y, t, n, dt, comm, stream));
  int in_place = recv_b && recv_b == at(send_b, (size_t)rank * n, f32);
  zero(fn, recv_b, n, f32, stream);
  launch_contrib(fn, OP_SUM, send_b, t, NULL, all, f32, in_place,
                 o == OP_AVG ? 1.0 / size : 1.0, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_reducescatter_tan(
    const void *send, const void *send_d, void *recv, void *recv_d,
    size_t recvcount, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t comm,
    cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_reducescatter_tan";
  int f32 = is_f32(fn, dt);
  sum_or_avg(fn, op);
  size_t n = recvcount, all = (size_t)comm_size(fn, comm) * n;
  void *zeros, *sink;
  scratch(fn, stream, send_d ? 0 : all * esize(f32), &zeros,
          recv_d ? 0 : n * esize(f32), &sink);
  const void *xd = or_zeros(fn, send_d, zeros, all, f32, stream);
  TRY_NCCL(fn, ncclReduceScatter(send, recv, n, dt, op, comm, stream));
  TRY_NCCL(fn, ncclReduceScatter(xd, recv_d ? recv_d : sink, n, dt, op, comm,
                                 stream));
  return ncclSuccess;
}

/* --- Point to point, in groups -------------------------------------------- */

static void p2p_push(const char *fn, int what, size_t count, int f32,
                     int peer, cudaStream_t s) {
  record_push(fn, what, OP_SUM, f32, count, 0, s);
  g_rec[g_depth - 1].peer = peer;
}

extern "C" ncclResult_t mpiad_gpu_nccl_send_fwd(const void *send, size_t count,
                                                ncclDataType_t dt, int peer,
                                                ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_send_fwd";
  int f32 = is_f32(fn, dt);
  TRY_NCCL(fn, ncclSend(send, count, dt, peer, comm, stream));
  p2p_push(fn, R_SEND, count, f32, peer, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_recv_fwd(void *recv, size_t count,
                                                ncclDataType_t dt, int peer,
                                                ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_recv_fwd";
  int f32 = is_f32(fn, dt);
  TRY_NCCL(fn, ncclRecv(recv, count, dt, peer, comm, stream));
  p2p_push(fn, R_RECV, count, f32, peer, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_group_end_rev(void) {
  group_open("mpiad_gpu_nccl_group_end_rev");
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_group_start_rev(void) {
  group_close("mpiad_gpu_nccl_group_start_rev");
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_send_rev(void *send_b, size_t count,
                                                ncclDataType_t dt, int peer,
                                                ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_send_rev";
  int f32 = is_f32(fn, dt);
  (void)peer; /* the recorded one */
  record_pop(fn, R_SEND, OP_SUM, f32, count, stream);
  int from = popped_peer();
  void *t = pool_get(fn, count * esize(f32), stream);
  TRY_NCCL(fn, ncclRecv(t, count, dt, from, comm, stream));
  defer(fn, send_b, t, count, f32, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_recv_rev(void *recv_b, size_t count,
                                                ncclDataType_t dt, int peer,
                                                ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_recv_rev";
  int f32 = is_f32(fn, dt);
  (void)peer;
  record_pop(fn, R_RECV, OP_SUM, f32, count, stream);
  int to = popped_peer();
  const void *y = recv_b;
  if (!y) {
    void *z = pool_get(fn, count * esize(f32), stream);
    zero(fn, z, count, f32, stream);
    y = z;
  }
  TRY_NCCL(fn, ncclSend(y, count, dt, to, comm, stream));
  defer(fn, recv_b, NULL, count, f32, stream);
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_group_start_tan(void) {
  group_open("mpiad_gpu_nccl_group_start_tan");
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_group_end_tan(void) {
  group_close("mpiad_gpu_nccl_group_end_tan");
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_send_tan(const void *send,
                                                const void *send_d,
                                                size_t count, ncclDataType_t dt,
                                                int peer, ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_send_tan";
  int f32 = is_f32(fn, dt);
  const void *xd = send_d;
  if (!xd) {
    void *z = pool_get(fn, count * esize(f32), stream);
    zero(fn, z, count, f32, stream);
    xd = z;
  }
  TRY_NCCL(fn, ncclSend(send, count, dt, peer, comm, stream));
  TRY_NCCL(fn, ncclSend(xd, count, dt, peer, comm, stream));
  return ncclSuccess;
}

extern "C" ncclResult_t mpiad_gpu_nccl_recv_tan(void *recv, void *recv_d,
                                                size_t count, ncclDataType_t dt,
                                                int peer, ncclComm_t comm,
                                                cudaStream_t stream) {
  const char *fn = "mpiad_gpu_nccl_recv_tan";
  int f32 = is_f32(fn, dt);
  void *yd = recv_d ? recv_d : pool_get(fn, count * esize(f32), stream);
  TRY_NCCL(fn, ncclRecv(recv, count, dt, peer, comm, stream));
  TRY_NCCL(fn, ncclRecv(yd, count, dt, peer, comm, stream));
  return ncclSuccess;
}
