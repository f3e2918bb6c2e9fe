/* Emulated libmpiad_gpu for test/lit/cuda/emulated.c (see cuda_runtime.h
 * beside it): the generated CUDA, with each `k<<<grid, block>>>(args)`
 * rewritten by sed into `mpiad_emu_launch(grid, block, k)(args)`, compiles
 * as C++ against this header and runs on the CPU.  Device memory is host
 * memory; kernels run one thread per block (a block sum is its one value),
 * blocks one after another, with few blocks so that the grid-stride loops
 * take several turns; atomics are plain additions; communication and the
 * adjoint helpers of MPI calls are those of libmpiad on host memory (same
 * semantics); the helpers of NCCL calls are libmpiad_gpu's (runtime/gpu/
 * nccl.cu, its launches rewritten by the same sed), over the NCCL of nccl.h
 * here (MPI on host memory). */
#ifndef MPIAD_EMU_GPU_H
#define MPIAD_EMU_GPU_H

#include "cuda_runtime.h"
#include "mpiad.h"
#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus /* the generated code; host programs include this as C */
#define __global__
#define __device__
#define __forceinline__ inline
#define MPIAD_GPU_THREADS 256
#define MPIAD_GPU_CHECK(call)                                                  \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
  } while (0)

static struct { long x; } threadIdx, blockIdx, blockDim, gridDim;

template <class... P> struct mpiad_emu_kernel {
  long grid;
  void (*kernel)(P...);
  template <class... A> void operator()(A... a) const {
    gridDim.x = grid;
    blockDim.x = 1;
    threadIdx.x = 0;
    for (long b = 0; b < grid; ++b) {
      blockIdx.x = b;
      kernel(a...);
    }
  }
};
template <class... P>
mpiad_emu_kernel<P...> mpiad_emu_launch(long grid, long block,
                                        void (*kernel)(P...)) {
  (void)block;
  return mpiad_emu_kernel<P...>{grid, kernel};
}
/* k<<<grid, block, shared bytes, stream>>>(...) (runtime/gpu/nccl.cu): the
 * stream runs its work when it is enqueued. */
template <class... P>
mpiad_emu_kernel<P...> mpiad_emu_launch(long grid, long block, size_t shared,
                                        cudaStream_t stream,
                                        void (*kernel)(P...)) {
  (void)block;
  (void)shared;
  (void)stream;
  return mpiad_emu_kernel<P...>{grid, kernel};
}

/* Three blocks at most: loops over more elements take several turns. */
static inline int mpiad_gpu_blocks(long n) { return n < 3 ? 1 : 3; }
static inline void mpiad_gpu_block_sum(double v, double *partials) {
  partials[blockIdx.x] = v;
}
static inline double atomicAdd(double *p, double v) {
  double old = *p;
  *p += v;
  return old;
}
static inline float atomicAdd(float *p, float v) {
  float old = *p;
  *p += v;
  return old;
}

#endif /* __cplusplus */

static double *mpiad_emu_slot[16];
static inline double *mpiad_gpu_partials(int slot, int n) {
  double *p = (double *)realloc(mpiad_emu_slot[slot],
                                (size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!p)
    MPI_Abort(MPI_COMM_WORLD, 1);
  mpiad_emu_slot[slot] = p;
  return p;
}
static inline double mpiad_gpu_sum_partials(const double *p, int n) {
  double s = 0;
  for (int k = 0; k < n; ++k)
    s += p[k];
  return s;
}
static inline void mpiad_gpu_add_partials(const double *p, int n,
                                          double *dest) {
  *dest += mpiad_gpu_sum_partials(p, n);
}

static inline void *mpiad_gpu_malloc(size_t b) { return malloc(b ? b : 1); }
static inline void *mpiad_gpu_calloc(size_t n, size_t s) {
  return calloc(n ? n : 1, s);
}
static inline void mpiad_gpu_free(void *p) { free(p); }
static inline void mpiad_gpu_memset0(void *p, size_t b) { memset(p, 0, b); }
static inline void mpiad_gpu_memcpy(void *d, const void *s, size_t b) {
  memmove(d, s, b);
}

static inline const char *mpiad_gpu_comm_path(MPI_Comm comm) {
  (void)comm;
  return "emulated";
}

typedef mpiad_batch mpiad_gpu_batch;
#define mpiad_gpu_batch_begin mpiad_batch_begin
#define mpiad_gpu_batch_add_f64 mpiad_batch_add_f64
#define mpiad_gpu_batch_add_f32 mpiad_batch_add_f32
#define mpiad_gpu_batch_add_host_f64 mpiad_batch_add_f64
#define mpiad_gpu_batch_add_host_f32 mpiad_batch_add_f32
#define mpiad_gpu_batch_allreduce mpiad_batch_allreduce

#define mpiad_gpu_allreduce MPI_Allreduce
#define mpiad_gpu_reduce MPI_Reduce
#define mpiad_gpu_bcast MPI_Bcast
#define mpiad_gpu_allgather MPI_Allgather
#define mpiad_gpu_reduce_scatter_block MPI_Reduce_scatter_block
#define mpiad_gpu_alltoall MPI_Alltoall
#define mpiad_gpu_gather MPI_Gather
#define mpiad_gpu_scatter MPI_Scatter
#define mpiad_gpu_send MPI_Send
#define mpiad_gpu_recv MPI_Recv
#define mpiad_gpu_allreduce_fwd mpiad_allreduce_fwd
#define mpiad_gpu_allreduce_rev mpiad_allreduce_rev
#define mpiad_gpu_reduce_fwd mpiad_reduce_fwd
#define mpiad_gpu_reduce_rev mpiad_reduce_rev
#define mpiad_gpu_bcast_rev mpiad_bcast_rev
#define mpiad_gpu_allgather_rev mpiad_allgather_rev
#define mpiad_gpu_reduce_scatter_block_rev mpiad_reduce_scatter_block_rev
#define mpiad_gpu_alltoall_rev mpiad_alltoall_rev
#define mpiad_gpu_gather_rev mpiad_gather_rev
#define mpiad_gpu_scatter_rev mpiad_scatter_rev
#define mpiad_gpu_send_fwd mpiad_send_fwd
#define mpiad_gpu_send_rev mpiad_send_rev
#define mpiad_gpu_recv_fwd mpiad_recv_fwd
#define mpiad_gpu_recv_rev mpiad_recv_rev
#define mpiad_gpu_sendrecv MPI_Sendrecv
#define mpiad_gpu_sendrecv_replace MPI_Sendrecv_replace
#define mpiad_gpu_sendrecv_fwd mpiad_sendrecv_fwd
#define mpiad_gpu_sendrecv_rev mpiad_sendrecv_rev
#define mpiad_gpu_sendrecv_replace_fwd mpiad_sendrecv_replace_fwd
#define mpiad_gpu_sendrecv_replace_rev mpiad_sendrecv_replace_rev
#define mpiad_gpu_allreduce_tan mpiad_allreduce_tan
#define mpiad_gpu_reduce_tan mpiad_reduce_tan
#define mpiad_gpu_send_tan mpiad_send_tan
#define mpiad_gpu_recv_tan mpiad_recv_tan
#define mpiad_gpu_sendrecv_tan mpiad_sendrecv_tan
#define mpiad_gpu_sendrecv_replace_tan mpiad_sendrecv_replace_tan

#endif
