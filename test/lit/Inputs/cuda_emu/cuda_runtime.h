/* Emulated CUDA runtime for test/lit/cuda/emulated.c: "device" memory is
 * host memory, so that the code mpiad-cc generates for --target=cuda can run
 * on a machine without a GPU.  Only what the test programs call.  C and C++.
 * This checks the generated code's logic (indices, bounds, reductions,
 * recomputation, the calls it makes), not the GPU: kernels run one thread per
 * block, blocks one after another. */
#ifndef MPIAD_EMU_CUDA_RUNTIME_H
#define MPIAD_EMU_CUDA_RUNTIME_H

#include <stdlib.h>
#include <string.h>

typedef int cudaError_t;
#define cudaSuccess 0
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice
};

static inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : 2;
}
static inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                                     enum cudaMemcpyKind kind) {
  (void)kind;
  if (bytes)
    memmove(dst, src, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int v, size_t bytes) {
  memset(p, v, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1; /* the emulated one */
  return cudaSuccess;
}
/* Streams: work runs when it is enqueued, so a stream is only a handle. */
typedef struct mpiad_emu_stream *cudaStream_t;
struct mpiad_emu_stream {
  int unused;
};
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = (cudaStream_t)malloc(sizeof(struct mpiad_emu_stream));
  return *s ? cudaSuccess : 2;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  free(s);
  return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes,
                                          cudaStream_t s) {
  (void)s;
  return cudaMemset(p, v, bytes);
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src,
                                          size_t bytes,
                                          enum cudaMemcpyKind kind,
                                          cudaStream_t s) {
  (void)s;
  return cudaMemcpy(dst, src, bytes, kind);
}
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t e) {
  return e ? "emulated error" : "no error";
}

#endif
