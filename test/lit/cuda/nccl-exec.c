// The program of cuda/nccl-emulated.c on a GPU: the generated code of
// Inputs/nccl_kernels.c with libmpiad_gpu and the real NCCL, at 1 rank
// (NCCL refuses two ranks on one GPU).  Reported unsupported on machines
// without a GPU.
// REQUIRES: nvcc, cuda-device
// RUN: %mpiad-cc --target=cuda %S/../Inputs/nccl_kernels.c %S/../Inputs/nccl_main.c -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
