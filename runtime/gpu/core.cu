/*
 * core.cu - the base of libmpiad_gpu: error messages, launch helpers, the
 * deterministic sums of per-block partials, checked device memory, the
 * device and pinned host scratch, the element-wise launchers and the record
 * stack of the adjoint helpers (see mpiad_gpu.h and internal.h).
 */
#include "internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Errors                                                                    */
/* ------------------------------------------------------------------------- */

static char last_error[1024];
static int have_error;

/* The file name without its directories (nvcc is given absolute paths). */
static const char *base_name(const char *file) {
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}

extern "C" const char *mpiad_gpu_last_error(void) { return last_error; }

mpiad_result_t mpiad_gpu_impl_call_failed(mpiad_result_t r, const char *call,
                                          const char *file, int line,
                                          const char *reason) {
  if (!have_error) {
    snprintf(last_error, sizeof last_error, "%s failed at %s:%d: %s", call,
             base_name(file), line, reason ? reason : "unknown error");
    have_error = 1;
  }
  return r;
}

mpiad_result_t mpiad_gpu_impl_failed(mpiad_result_t r, const char *file,
                                     int line, const char *fmt, ...) {
  if (!have_error) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%s (at %s:%d)", msg,
             base_name(file), line);
    have_error = 1;
  }
  return r;
}

mpiad_result_t mpiad_gpu_impl_mpi_failed(int code, const char *call,
                                         const char *file, int line) {
  char reason[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, reason, &len) != MPI_SUCCESS)
    snprintf(reason, sizeof reason, "MPI error code %d", code);
  return mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, call, file, line, reason);
}

void mpiad_gpu_impl_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("mpiad_gpu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  int init = 0, fin = 0;
  if (MPI_Initialized(&init) == MPI_SUCCESS && init &&
      MPI_Finalized(&fin) == MPI_SUCCESS && !fin)
    MPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

/* For the functions that abort: the CUDA call `call` (text) failed with e. */
#define FATAL_CUDA(e, call_text)                                               \
  mpiad_gpu_impl_fatal("%s:%d: %s failed: %s", base_name(__FILE__), __LINE__,  \
                       call_text, cudaGetErrorString(e))

/* ------------------------------------------------------------------------- */
/* Launch helpers                                                            */
/* ------------------------------------------------------------------------- */

static int block_cap; /* 0 until queried */

extern "C" int mpiad_gpu_blocks(long n) {
  if (block_cap == 0) {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ==
            cudaSuccess &&
        sms > 0) {
      block_cap = 32 * sms;
    } else {
      (void)cudaGetLastError(); /* do not leave the failure to the caller */
      block_cap = 1024;
    }
  }
  if (n <= 0)
    return 1;
  long b = n / MPIAD_GPU_THREADS + (n % MPIAD_GPU_THREADS != 0);
  return b > block_cap ? block_cap : (int)b;
}

/* Grid for an element-wise kernel over n elements. */
static int grid_for(size_t n) {
  return mpiad_gpu_blocks(n > (size_t)LONG_MAX ? LONG_MAX : (long)n);
}

/* ------------------------------------------------------------------------- */
/* Sums of partials                                                          */
/* ------------------------------------------------------------------------- */

#define NSLOTS 16

static double *slot_ptr[NSLOTS];
static int slot_cap[NSLOTS];
static double *sum_result; /* one device double for mpiad_gpu_sum_partials */

extern "C" double *mpiad_gpu_partials(int slot, int nblocks) {
  if (slot < 0 || slot >= NSLOTS)
    mpiad_gpu_impl_fatal("mpiad_gpu_partials: slot %d is not in 0..%d", slot,
                         NSLOTS - 1);
  if (nblocks < 1)
    mpiad_gpu_impl_fatal("mpiad_gpu_partials: nblocks = %d, must be >= 1",
                         nblocks);
  if (nblocks > slot_cap[slot]) {
    int cap = nblocks < 1024 ? 1024 : nblocks;
    cudaError_t e;
    /* A kernel queued earlier (mpiad_gpu_add_partials is asynchronous) may
     * still read the old buffer: wait for the device before freeing it. */
    if (slot_ptr[slot] && (e = cudaDeviceSynchronize()) != cudaSuccess)
      FATAL_CUDA(e, "cudaDeviceSynchronize()");
    if (slot_ptr[slot] && (e = cudaFree(slot_ptr[slot])) != cudaSuccess)
      FATAL_CUDA(e, "cudaFree(slot_ptr[slot])");
    slot_ptr[slot] = NULL;
    slot_cap[slot] = 0;
    void *p = NULL;
    e = cudaMalloc(&p, (size_t)cap * sizeof(double));
    if (e != cudaSuccess)
      FATAL_CUDA(e, "cudaMalloc(&p, cap * sizeof(double))");
    slot_ptr[slot] = (double *)p;
    slot_cap[slot] = cap;
  }
  return slot_ptr[slot];
}

/* One block: every thread sums a strided subset in a fixed order, then the
 * block sum; *dest = sum, or *dest += sum if accumulate. */
static __global__ void sum_partials_kernel(const double *p, int n, double *dest,
                                           int accumulate) {
  __shared__ double total[1];
  double v = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += p[i];
  mpiad_gpu_block_sum(v, total); /* blockIdx.x == 0: writes total[0] */
  if (threadIdx.x == 0)
    *dest = accumulate ? *dest + total[0] : total[0];
}

extern "C" double mpiad_gpu_sum_partials(const double *partials, int nblocks) {
  cudaError_t e;
  if (!sum_result) {
    void *p = NULL;
    if ((e = cudaMalloc(&p, sizeof(double))) != cudaSuccess)
      FATAL_CUDA(e, "cudaMalloc(&p, sizeof(double))");
    sum_result = (double *)p;
  }
  sum_partials_kernel<<<1, MPIAD_GPU_THREADS>>>(partials, nblocks, sum_result,
                                                0);
  if ((e = cudaGetLastError()) != cudaSuccess)
    FATAL_CUDA(e, "sum_partials_kernel<<<1, MPIAD_GPU_THREADS>>>");
  double v = 0.0;
  if ((e = cudaMemcpy(&v, sum_result, sizeof v, cudaMemcpyDeviceToHost)) !=
      cudaSuccess)
    FATAL_CUDA(e,
               "cudaMemcpy(&v, sum_result, sizeof v, cudaMemcpyDeviceToHost)");
  return v;
}

extern "C" void mpiad_gpu_add_partials(const double *partials, int nblocks,
                                       double *dest) {
  sum_partials_kernel<<<1, MPIAD_GPU_THREADS>>>(partials, nblocks, dest, 1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    FATAL_CUDA(e, "sum_partials_kernel<<<1, MPIAD_GPU_THREADS>>>");
}

/* ------------------------------------------------------------------------- */
/* Device memory                                                             */
/* ------------------------------------------------------------------------- */

extern "C" void *mpiad_gpu_malloc(size_t bytes) {
  if (bytes == 0)
    return NULL;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess)
    mpiad_gpu_impl_fatal("%s:%d: cudaMalloc(&p, %zu bytes) failed: %s",
                         base_name(__FILE__), __LINE__, bytes,
                         cudaGetErrorString(e));
  return p;
}

extern "C" void *mpiad_gpu_calloc(size_t n, size_t size) {
  if (size != 0 && n > (size_t)-1 / size)
    mpiad_gpu_impl_fatal("mpiad_gpu_calloc(%zu, %zu): size overflows", n, size);
  void *p = mpiad_gpu_malloc(n * size);
  mpiad_gpu_memset0(p, n * size);
  return p;
}

extern "C" void mpiad_gpu_free(void *p) {
  if (!p)
    return;
  cudaError_t e = cudaFree(p);
  if (e != cudaSuccess)
    FATAL_CUDA(e, "cudaFree(p)");
}

extern "C" void mpiad_gpu_memset0(void *p, size_t bytes) {
  if (bytes == 0)
    return;
  cudaError_t e = cudaMemset(p, 0, bytes);
  if (e != cudaSuccess)
    mpiad_gpu_impl_fatal("%s:%d: cudaMemset(p, 0, %zu bytes) failed: %s",
                         base_name(__FILE__), __LINE__, bytes,
                         cudaGetErrorString(e));
}

extern "C" void mpiad_gpu_memcpy(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return;
  cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
  if (e != cudaSuccess)
    mpiad_gpu_impl_fatal("%s:%d: cudaMemcpy(dst, src, %zu bytes, "
                         "cudaMemcpyDeviceToDevice) failed: %s",
                         base_name(__FILE__), __LINE__, bytes,
                         cudaGetErrorString(e));
}

/* ------------------------------------------------------------------------- */
/* Scratch                                                                   */
/* ------------------------------------------------------------------------- */

#define GRAIN ((size_t)256)
static size_t round_up(size_t b) { return (b + GRAIN - 1) / GRAIN * GRAIN; }

static void *dscratch[2];
static size_t dscratch_cap[2];
static void *hstage;
static size_t hstage_cap;

/* New capacity for a buffer of capacity cap that must hold need bytes. */
static size_t grown(size_t cap, size_t need, size_t least) {
  size_t c = 2 * cap > need ? 2 * cap : need;
  return c < least ? least : c;
}

mpiad_result_t mpiad_gpu_impl_dcarve(int which, size_t b0, void **r0, size_t b1,
                                     void **r1, size_t b2, void **r2, size_t b3,
                                     void **r3) {
  size_t o1 = round_up(b0), o2 = o1 + round_up(b1), o3 = o2 + round_up(b2);
  size_t need = o3 + round_up(b3) + GRAIN;
  if (need > dscratch_cap[which]) {
    size_t cap = grown(dscratch_cap[which], need, (size_t)1 << 20);
    /* cudaFree need not wait for queued work that may still use it. */
    if (dscratch[which]) {
      GPU_TRY_CUDA(cudaDeviceSynchronize());
      GPU_TRY_CUDA(cudaFree(dscratch[which]));
    }
    dscratch[which] = NULL;
    dscratch_cap[which] = 0;
    GPU_TRY_CUDA(cudaMalloc(&dscratch[which], cap));
    dscratch_cap[which] = cap;
  }
  unsigned char *s = (unsigned char *)dscratch[which];
  if (r0)
    *r0 = s;
  if (r1)
    *r1 = s + o1;
  if (r2)
    *r2 = s + o2;
  if (r3)
    *r3 = s + o3;
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_hcarve(size_t b0, void **r0, size_t b1,
                                     void **r1) {
  size_t o1 = round_up(b0), need = o1 + round_up(b1) + GRAIN;
  if (need > hstage_cap) {
    size_t cap = grown(hstage_cap, need, (size_t)1 << 20);
    if (hstage) {
      GPU_TRY_CUDA(cudaDeviceSynchronize());
      GPU_TRY_CUDA(cudaFreeHost(hstage));
    }
    hstage = NULL;
    hstage_cap = 0;
    GPU_TRY_CUDA(cudaMallocHost(&hstage, cap));
    hstage_cap = cap;
  }
  unsigned char *s = (unsigned char *)hstage;
  if (r0)
    *r0 = s;
  if (r1)
    *r1 = s + o1;
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Element-wise launchers                                                    */
/* ------------------------------------------------------------------------- */

template <class T>
static __global__ void acc_kernel(T *dst, const T *src, size_t n) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    dst[k] += src[k];
}

mpiad_result_t mpiad_gpu_impl_zero(void *p, size_t n, int e,
                                   cudaStream_t stream) {
  if (p && n > 0)
    GPU_TRY_CUDA(cudaMemsetAsync(p, 0, n * elem_size(e), stream));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_copy(void *dst, const void *src, size_t n, int e,
                                   cudaStream_t stream) {
  if (dst && dst != src && n > 0)
    GPU_TRY_CUDA(cudaMemcpyAsync(dst, src, n * elem_size(e),
                                 cudaMemcpyDeviceToDevice, stream));
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_acc(void *dst, const void *src, size_t n, int e,
                                  cudaStream_t stream) {
  if (!dst || n == 0)
    return MPIAD_SUCCESS;
  int g = grid_for(n);
  if (e == E_F64)
    acc_kernel<<<g, MPIAD_GPU_THREADS, 0, stream>>>((double *)dst,
                                                    (const double *)src, n);
  else if (e == E_F32)
    acc_kernel<<<g, MPIAD_GPU_THREADS, 0, stream>>>((float *)dst,
                                                    (const float *)src, n);
  else
    acc_kernel<<<g, MPIAD_GPU_THREADS, 0, stream>>>((int32_t *)dst,
                                                    (const int32_t *)src, n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Record stack                                                              */
/* ------------------------------------------------------------------------- */
/* Records live in a host array; their element data in device chunks.  The
 * top of the stack is a position (chunk, offset); a push takes the next
 * `bytes` (rounded to 256) there, or moves to the next chunk (replacing an
 * empty one that is too small, or appending one of at least 1 MiB and twice
 * the last), and remembers the previous top, which the pop restores.
 * Chunks are kept for reuse, so a repeated adjoint allocates nothing. */

typedef struct {
  unsigned char *base;
  size_t cap;
} dchunk;

static dchunk *chunks;
static size_t nchunks, chunks_cap;
static size_t top_chunk, top_off;
static mpiad_gpu_record *recs;
static size_t nrecs, recs_cap;
static size_t rec_bytes;

extern "C" size_t mpiad_gpu_record_bytes(void) { return rec_bytes; }
extern "C" size_t mpiad_gpu_record_count(void) { return nrecs; }

/* Makes chunks[c] exist and hold at least b bytes; it must be empty. */
static mpiad_result_t ensure_chunk(size_t c, size_t b) {
  if (c < nchunks && chunks[c].cap >= b)
    return MPIAD_SUCCESS;
  if (c == nchunks && nchunks == chunks_cap) {
    size_t cap = chunks_cap ? 2 * chunks_cap : 8;
    dchunk *p = (dchunk *)realloc(chunks, cap * sizeof *p);
    if (!p)
      return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                   "no host memory for the record stack");
    chunks = p;
    chunks_cap = cap;
  }
  size_t last = c > 0 ? chunks[c - 1].cap : 0;
  size_t cap = grown(last, b, (size_t)1 << 20);
  if (c < nchunks) { /* an empty chunk that is too small: replace it */
    GPU_TRY_CUDA(cudaDeviceSynchronize());
    GPU_TRY_CUDA(cudaFree(chunks[c].base));
    chunks[c].base = NULL;
    chunks[c].cap = 0;
  } else {
    chunks[c].base = NULL;
    chunks[c].cap = 0;
    nchunks++;
  }
  void *p = NULL;
  GPU_TRY_CUDA(cudaMalloc(&p, cap));
  chunks[c].base = (unsigned char *)p;
  chunks[c].cap = cap;
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_record_push(const mpiad_gpu_record *r,
                                          size_t bytes, void **region) {
  if (nrecs == recs_cap) {
    size_t cap = recs_cap ? 2 * recs_cap : 64;
    mpiad_gpu_record *p = (mpiad_gpu_record *)realloc(recs, cap * sizeof *p);
    if (!p)
      return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                   "no host memory for the record stack");
    recs = p;
    recs_cap = cap;
  }
  mpiad_gpu_record x = *r;
  x.prev_chunk = top_chunk;
  x.prev_off = top_off;
  x.bytes = bytes;
  x.chunk = top_chunk;
  x.off = top_off;
  if (region)
    *region = NULL;
  if (bytes > 0) {
    size_t b = round_up(bytes), c = top_chunk, off = top_off;
    while (!(c < nchunks && off + b <= chunks[c].cap)) {
      if (c < nchunks && off > 0) { /* the rest of this chunk is too small */
        ++c;
        off = 0;
        continue;
      }
      GPU_TRY(ensure_chunk(c, b)); /* chunk c is empty here */
    }
    x.chunk = c;
    x.off = off;
    top_chunk = c;
    top_off = off + b;
    rec_bytes += bytes;
    if (region)
      *region = chunks[c].base + off;
  }
  recs[nrecs++] = x;
  return MPIAD_SUCCESS;
}

static const char *record_name(int what) {
  switch (what) {
  case REC_ALLREDUCE:
    return "mpiad_gpu_allreduce_fwd";
  case REC_REDUCE:
    return "mpiad_gpu_reduce_fwd";
  case REC_SEND:
    return "mpiad_gpu_send_fwd";
  case REC_RECV:
    return "mpiad_gpu_recv_fwd";
  case REC_SENDRECV:
    return "mpiad_gpu_sendrecv_fwd";
  case REC_SENDRECV_REPLACE:
    return "mpiad_gpu_sendrecv_replace_fwd";
  }
  return "unknown record";
}

void mpiad_gpu_impl_record_pop(int what, int e, int count, const char *where,
                               mpiad_gpu_record *r, void **region) {
  if (nrecs == 0)
    mpiad_gpu_impl_fatal("%s: the record stack is empty (the reverse sweep "
                         "does not mirror the forward sweep)",
                         where);
  const mpiad_gpu_record *top = &recs[nrecs - 1];
  if (top->what != what || top->e != e || (count >= 0 && top->count != count))
    mpiad_gpu_impl_fatal(
        "%s: the record on top is from %s (%s, %d elements), expected %s "
        "(%s, %d elements): the reverse sweep does not mirror the forward "
        "sweep",
        where, record_name(top->what),
        top->e == E_F64 ? "MPI_DOUBLE" : "MPI_FLOAT", top->count,
        record_name(what), e == E_F64 ? "MPI_DOUBLE" : "MPI_FLOAT", count);
  *r = *top;
  --nrecs;
  *region = r->bytes > 0 ? chunks[r->chunk].base + r->off : NULL;
  rec_bytes -= r->bytes;
  top_chunk = r->prev_chunk;
  top_off = r->prev_off;
}

/* ------------------------------------------------------------------------- */
/* Release                                                                   */
/* ------------------------------------------------------------------------- */

/* Errors are ignored here: this runs at MPI_Finalize, possibly after the
 * program has reset the device. */
void mpiad_gpu_impl_release_core(void) {
  (void)cudaDeviceSynchronize(); /* mpiad_gpu_add_partials may be queued */
  for (int i = 0; i < NSLOTS; ++i) {
    if (slot_ptr[i])
      (void)cudaFree(slot_ptr[i]);
    slot_ptr[i] = NULL;
    slot_cap[i] = 0;
  }
  if (sum_result)
    (void)cudaFree(sum_result);
  sum_result = NULL;
  for (int w = 0; w < 2; ++w) {
    if (dscratch[w])
      (void)cudaFree(dscratch[w]);
    dscratch[w] = NULL;
    dscratch_cap[w] = 0;
  }
  if (hstage)
    (void)cudaFreeHost(hstage);
  hstage = NULL;
  hstage_cap = 0;
  for (size_t c = 0; c < nchunks; ++c)
    if (chunks[c].base)
      (void)cudaFree(chunks[c].base);
  free(chunks);
  chunks = NULL;
  nchunks = chunks_cap = 0;
  top_chunk = top_off = 0;
  free(recs);
  recs = NULL;
  nrecs = recs_cap = 0;
  rec_bytes = 0;
  (void)cudaGetLastError();
}
