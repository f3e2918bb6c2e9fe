// An NCCL call used as a value: the call becomes a statement before the one
// that uses it, and its value is ncclSuccess (as MPI calls get MPI_SUCCESS).
// RUN: %mpiad-emit --target=cuda -I%S/../Inputs/cuda_emu %s -o - | FileCheck %s
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void checked(const double *x, double *y, int n, ncclComm_t nc,
             cudaStream_t st) {
  ncclResult_t r = ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
  if (r != ncclSuccess)
    printf("ncclAllReduce failed\n");
}
// CHECK-LABEL: extern "C" void checked_b(
// CHECK:         mpiad_gpu_nccl_allreduce_fwd(x, y, n, ncclDouble, ncclSum, nc, st);
// CHECK-NEXT:    r = ncclSuccess;
// CHECK-NEXT:    if (r != ncclSuccess) {
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 1);
