// The CUDA target on a GPU: values, adjoints and tangents of the generated
// kernels (Inputs/cuda_kernels.c) against formulas evaluated on the host,
// the dot-product test and central differences, at 1 to 4 ranks sharing the
// GPU (the replicated gradient's sum over ranks then goes through the host-
// staged MPI path of libmpiad_gpu; at one rank through NCCL).
// REQUIRES: cuda-device
// RUN: %mpiad-cc --target=cuda %S/../Inputs/cuda_kernels.c %S/../Inputs/cuda_main.c -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
