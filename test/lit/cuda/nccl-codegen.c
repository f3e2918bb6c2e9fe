// The calls generated for the NCCL calls of Inputs/nccl_kernels.c by
// rules/nccl.rules on the CUDA target: the primal keeps the NCCL call; the
// adjoint's forward sweep calls the recording helper on the same
// communicator and stream, its reverse sweep the _rev helper, with
// partial = 0 over an NCCL communicator made from the function's MPI
// communicator (ncclCommInitRank from an id broadcast over comm: the result
// is replicated) and partial = 1 over one passed in; the communicator is
// destroyed after the reverse sweep; the tangent calls the _tan helper.  A
// group of sends and receives is reversed as a group.
// RUN: %mpiad-emit --target=cuda -I%S/../Inputs/cuda_emu %S/../Inputs/nccl_kernels.c -o %t.cu
// RUN: FileCheck %s < %t.cu

// The helpers' header (it includes nccl.h) only where they are called.
// CHECK:       #include "mpiad_gpu.h"
// CHECK-NEXT:  #include "mpiad_gpu_nccl.h"

// CHECK-LABEL: extern "C" double ar_sum(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
// CHECK:         ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
// CHECK:         ncclCommDestroy(nc);

// CHECK-LABEL: extern "C" double ar_sum_b(
// CHECK:         /* forward sweep */
// CHECK:         MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
// CHECK-NEXT:    ncclCommInitRank(&nc, size, id, rank);
// CHECK:         mpiad_gpu_nccl_allreduce_fwd(x, y, n, ncclDouble, ncclSum, nc, st);
// CHECK:         /* ncclCommDestroy(nc) happens in the reverse sweep */
// CHECK:         /* reverse sweep */
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 0);
// CHECK:         ncclCommDestroy(nc);
// CHECK-NEXT:    return mpiad_ret;

// CHECK-LABEL: extern "C" double ar_sum_d(
// CHECK:         mpiad_gpu_nccl_allreduce_tan(x, x_d, y, y_d, n, ncclDouble, ncclSum, nc, st);

// CHECK-LABEL: extern "C" double ar_prod_b(
// CHECK:         mpiad_gpu_nccl_allreduce_fwd(x, y, n, ncclDouble, ncclProd, nc, st);
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclProd, nc, st, 0);
// CHECK-LABEL: extern "C" double ar_prod_d(
// CHECK:         mpiad_gpu_nccl_allreduce_tan(x, x_d, y, y_d, n, ncclDouble, ncclProd, nc, st);

// CHECK-LABEL: extern "C" double ar_max_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclMax, nc, st, 0);
// CHECK-LABEL: extern "C" double ar_min_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclMin, nc, st, 0);
// CHECK-LABEL: extern "C" double ar_avg_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclAvg, nc, st, 0);

// CHECK-LABEL: extern "C" double bcast_b(
// CHECK:         mpiad_gpu_nccl_broadcast_fwd(x, y, n, ncclDouble, size - 1, nc, st);
// CHECK:         mpiad_gpu_nccl_broadcast_rev(x_b, y_b, n, ncclDouble, size - 1, nc, st, 0);
// CHECK-LABEL: extern "C" double bcast_d(
// CHECK:         mpiad_gpu_nccl_broadcast_tan(x, x_d, y, y_d, n, ncclDouble, size - 1, nc, st);

// CHECK-LABEL: extern "C" double red_prod_b(
// CHECK:         mpiad_gpu_nccl_reduce_fwd(x, y, n, ncclDouble, ncclProd, 0, nc, st);
// CHECK:         mpiad_gpu_nccl_reduce_rev(x_b, y_b, n, ncclDouble, ncclProd, 0, nc, st);
// CHECK-LABEL: extern "C" double red_prod_d(
// CHECK:         mpiad_gpu_nccl_reduce_tan(x, x_d, y, y_d, n, ncclDouble, ncclProd, 0, nc, st);

// CHECK-LABEL: extern "C" double gather_b(
// CHECK:         mpiad_gpu_nccl_allgather_fwd(x, y, n, ncclDouble, nc, st);
// CHECK:         mpiad_gpu_nccl_allgather_rev(x_b, y_b, n, ncclDouble, nc, st, 0);
// CHECK-LABEL: extern "C" double gather_d(
// CHECK:         mpiad_gpu_nccl_allgather_tan(x, x_d, y, y_d, n, ncclDouble, nc, st);

// CHECK-LABEL: extern "C" double scatter_b(
// CHECK:         mpiad_gpu_nccl_reducescatter_fwd(x, y, n, ncclDouble, ncclSum, nc, st);
// CHECK:         mpiad_gpu_nccl_reducescatter_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st);
// CHECK-LABEL: extern "C" double scatter_d(
// CHECK:         mpiad_gpu_nccl_reducescatter_tan(x, x_d, y, y_d, n, ncclDouble, ncclSum, nc, st);

// CHECK-LABEL: extern "C" double bcast_inplace_b(
// CHECK:         mpiad_gpu_nccl_broadcast_fwd(y, y, n, ncclDouble, 0, nc, st);
// CHECK:         mpiad_gpu_nccl_broadcast_rev(y_b, y_b, n, ncclDouble, 0, nc, st, 0);

// The group of sends and receives, reversed as a group: the reverse of
// ncclGroupEnd opens it, the calls are reversed in the mirror order (the
// send of w, which carries no derivative, with NULL: it still receives),
// and the reverse of ncclGroupStart closes it.
// CHECK-LABEL: extern "C" double ring_b(
// CHECK:         ncclGroupStart();
// CHECK-NEXT:    mpiad_gpu_nccl_send_fwd(x, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_recv_fwd(y, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_send_fwd(w, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_recv_fwd(v, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    ncclGroupEnd();
// CHECK:         /* reverse sweep */
// CHECK:         mpiad_gpu_nccl_group_end_rev();
// CHECK-NEXT:    mpiad_gpu_nccl_recv_rev(v_b, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_send_rev(NULL, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_recv_rev(y_b, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_send_rev(x_b, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_group_start_rev();
// CHECK-LABEL: extern "C" double ring_d(
// CHECK:         mpiad_gpu_nccl_group_start_tan();
// CHECK-NEXT:    mpiad_gpu_nccl_send_tan(x, x_d, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_recv_tan(y, y_d, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_send_tan(w, NULL, n, ncclDouble, left, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_recv_tan(v, v_d, n, ncclDouble, right, nc, st);
// CHECK-NEXT:    mpiad_gpu_nccl_group_end_tan();

// An NCCL communicator passed in: varying, so partial.
// CHECK-LABEL: extern "C" double ar_sum_nc_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 1);
// CHECK-LABEL: extern "C" double gather_nc_b(
// CHECK:         mpiad_gpu_nccl_allgather_rev(x_b, y_b, n, ncclDouble, nc, st, 1);
