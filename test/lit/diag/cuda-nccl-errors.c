// Located errors for NCCL calls on the CUDA target: an operator or datatype
// without derivatives, a datatype that does not match the buffer, an NCCL
// call without a rule, sends and receives outside a group, and collectives
// inside one.
// RUN: not %mpiad-emit --target=cuda -I%S/../Inputs/cuda_emu %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %mpiad-emit --target=cuda -DFORWARD -I%S/../Inputs/cuda_emu %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: not %mpiad-emit --target=cuda -DFORWARD2 -I%S/../Inputs/cuda_emu %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD2
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#if !defined(FORWARD) && !defined(FORWARD2)
#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void bad_op(const double *x, double *y, int n, ncclComm_t nc, cudaStream_t st) {
  ncclReduceScatter(x, y, n, ncclDouble, ncclMax, nc, st);
}
// CHECK: cuda-nccl-errors.c:[[@LINE-2]]:42: error: reduction operator 'ncclMax' of ncclReduceScatter is not supported for values that carry derivatives (supported: ncclSum, ncclAvg)

#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void bad_type(const double *x, double *y, int n, ncclComm_t nc, cudaStream_t st) {
  ncclAllReduce(x, y, n, ncclFloat, ncclSum, nc, st);
}
// CHECK: cuda-nccl-errors.c:[[@LINE-2]]:17: error: buffer 'x' holds double but ncclAllReduce is told ncclFloat; use ncclDouble

#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void int_type(const double *x, double *y, int n, ncclComm_t nc, cudaStream_t st) {
  ncclAllReduce(x, y, n, ncclInt32, ncclSum, nc, st);
}
// CHECK: cuda-nccl-errors.c:[[@LINE-2]]:26: error: datatype 'ncclInt32' of ncclAllReduce cannot carry derivatives; use ncclDouble or ncclFloat

#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void no_rule(const double *x, double *y, int n, ncclComm_t nc, cudaStream_t st) {
  ncclAlltoAll(x, y, n, ncclDouble, nc, st);
}
// CHECK: cuda-nccl-errors.c:[[@LINE-2]]:3: error: 'ncclAlltoAll' has no rule (its buffer depends on 'x'); the NCCL calls with rules in rules/nccl.rules are ncclAllReduce, ncclBroadcast, ncclBcast, ncclReduce, ncclAllGather, ncclReduceScatter, and ncclSend and ncclRecv in groups; for another, add a comm rule (docs/rules.md) or use its MPI counterpart on the device buffers

// The reverse of a send is a receive that completes at the end of the
// reversed group: outside a group there is none.
#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void no_group(const double *x, double *y, int n, int peer, ncclComm_t nc,
              cudaStream_t st) {
  ncclSend(x, n, ncclDouble, peer, nc, st);
  ncclRecv(y, n, ncclDouble, peer, nc, st);
}
// CHECK: cuda-nccl-errors.c:[[@LINE-3]]:3: error: 'ncclSend' carries derivatives outside a group: its reverse (and its tangent) completes at the end of the reversed group; put the call between ncclGroupStart() and ncclGroupEnd()
// CHECK: cuda-nccl-errors.c:[[@LINE-3]]:3: error: 'ncclRecv' carries derivatives outside a group: its reverse (and its tangent) completes at the end of the reversed group; put the call between ncclGroupStart() and ncclGroupEnd()

// A collective in a group: its helpers' kernels would run before the
// group's collectives.
#pragma mpiad differentiate wrt(x) output(y) varying(x) replicated(n)
void in_group(const double *x, double *y, int n, ncclComm_t nc,
              cudaStream_t st) {
  ncclGroupStart();
  ncclAllReduce(x, y, n, ncclDouble, ncclMax, nc, st);
  ncclGroupEnd();
}
// CHECK: cuda-nccl-errors.c:[[@LINE-3]]:3: error: 'ncclAllReduce' carries derivatives inside a group (ncclGroupStart()/ncclGroupEnd()): its adjoint and tangent run kernels between collectives, which the group would defer to its end; move the call out of the group

#elif defined(FORWARD)
/* forward mode (runs of their own: an error ends generation) */
#pragma mpiad differentiate forward wrt(x) output(y)
void no_group_d(const double *x, double *y, int n, int peer, ncclComm_t nc,
                cudaStream_t st) {
  ncclGroupStart();
  ncclSend(x, n, ncclDouble, peer, nc, st);
  ncclGroupEnd();
  ncclRecv(y, n, ncclDouble, peer, nc, st);
}
// FWD: cuda-nccl-errors.c:[[@LINE-2]]:3: error: 'ncclRecv' carries derivatives outside a group: its reverse (and its tangent) completes at the end of the reversed group; put the call between ncclGroupStart() and ncclGroupEnd()
#else
#pragma mpiad differentiate forward wrt(x) output(y)
void in_group_d(const double *x, double *y, int n, ncclComm_t nc,
                cudaStream_t st) {
  ncclGroupStart();
  ncclBroadcast(x, y, n, ncclDouble, 0, nc, st);
  ncclGroupEnd();
}
// FWD2: cuda-nccl-errors.c:[[@LINE-3]]:3: error: 'ncclBroadcast' carries derivatives inside a group (ncclGroupStart()/ncclGroupEnd()): its adjoint and tangent run kernels between collectives, which the group would defer to its end; move the call out of the group
#endif
