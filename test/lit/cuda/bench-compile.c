// CI has no GPU: the GPU benchmark (bench/gpu, what bench/gpu/run.sh builds)
// is compiled and linked with nvcc, libmpiad_gpu and NCCL on every commit.
// REQUIRES: nvcc
// RUN: %mpiad-cc --target=cuda -O2 -DMPIAD_BENCH_NCCL %srcroot/bench/gpu/kernels_gpu.c %srcroot/bench/gpu/bench_gpu.c -lm -o %t
// RUN: test -x %t
