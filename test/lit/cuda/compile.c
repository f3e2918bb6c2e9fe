// CI has no GPU: the CUDA target's output for Inputs/cuda_kernels.c is
// compiled by nvcc (through mpiad-cc -c) and linked with a host program and
// libmpiad_gpu, so that code generation is checked on every commit.  The
// object defines the GPU primal, adjoint and tangent with C linkage.
// REQUIRES: nvcc
// RUN: %mpiad-cc --target=cuda -c %S/../Inputs/cuda_kernels.c -o %t.o
// RUN: nm %t.o | FileCheck %s
// RUN: %mpiad-cc --target=cuda %S/../Inputs/cuda_kernels.c %S/../Inputs/cuda_main.c -lm -o %t.exe
// RUN: test -x %t.exe
// CHECK-DAG: T energy
// CHECK-DAG: T energy_d
// CHECK-DAG: T loss
// CHECK-DAG: T loss_b
// CHECK-DAG: T dot_b
// CHECK-DAG: T prodall_b
// CHECK-DAG: T halo_b
// CHECK-DAG: T smooth
// CHECK-DAG: T smooth_b
