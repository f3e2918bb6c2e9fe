/*
 * mpiad_gpu_nccl.h - the helpers of rules/nccl.rules (runtime/gpu/nccl.cu,
 * part of libmpiad_gpu): forward, reverse and tangent versions of the NCCL
 * collectives a user writes in a function compiled with --target=cuda.
 * It includes nccl.h; the code mpiad-cc generates includes it (after
 * mpiad_gpu.h) only where it calls these helpers.
 *
 * Conventions (every function):
 *   - Arguments as the NCCL call's: DEVICE buffers, a count of elements, an
 *     NCCL datatype (ncclFloat64 / ncclDouble or ncclFloat32 / ncclFloat; any
 *     other is an error), an NCCL reduction (ncclSum, ncclProd, ncclMax,
 *     ncclMin, ncclAvg; ReduceScatter: ncclSum and ncclAvg), the user's NCCL
 *     communicator and the user's CUDA stream.
 *   - Streams: everything a helper does (NCCL calls, element-wise kernels,
 *     cudaMemsetAsync) is enqueued on the user's stream, in order, as the NCCL
 *     call itself would be; a helper returns without synchronising.  The
 *     reverse sweep calls the _rev helpers in the reverse order of the
 *     primal calls, on the stream each primal call used.
 *   - Adjoints as in mpiad.h: adjoints of inputs are ACCUMULATED, adjoints of
 *     outputs read, then ZEROED; NULL = no derivative on this rank (the
 *     helper still takes part in the communication, with zeros); in place
 *     (sendbuff == recvbuff, for AllGather / ReduceScatter this rank's block)
 *     is recognised from the adjoint pointers too.  partial = 1: the adjoint
 *     of the output is a per-rank share, summed over ranks first.  Float
 *     arithmetic in double, rounded once per stored value.
 *   - Records: each _fwd helper pushes one record, which the matching _rev
 *     pops; PROD keeps [x | product of the non-zero inputs | number of zero
 *     inputs], MAX/MIN one owner flag per element (the LOWEST rank holding
 *     the extreme), in device memory kept for reuse.  A _rev that does not
 *     match the record on top (another call, op, datatype or count) aborts
 *     with a message.
 *   - Tangents (_tan): replace the call; the primal output is written and
 *     the output tangent OVERWRITTEN, recv_d = sum over ranks r of
 *     d recv / d send_r * send_d_r, with the adjoints' tie rule for MAX/MIN.
 *   - Errors are fatal: "mpiad_gpu: <helper>: <reason>" on stderr, then
 *     MPI_Abort.  The functions return ncclSuccess.
 *   - Device scratch (zeros for a NULL adjoint, MAX/MIN candidates) is one
 *     buffer kept and grown; a helper on another stream than the last one
 *     first waits for that stream.
 */
#ifndef MPIAD_GPU_NCCL_H
#define MPIAD_GPU_NCCL_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of ranks / this rank in an NCCL communicator (extents in rules). */
int mpiad_gpu_nccl_size(ncclComm_t comm);
int mpiad_gpu_nccl_rank(ncclComm_t comm);

/** ncclAllReduce.  PROD: two allreduces (the product of the non-zero
 *  inputs, the number of zeros), recv = +0 where an input is zero; MAX/MIN:
 *  the allreduce, then a MIN allreduce of the ranks holding the extreme. */
ncclResult_t mpiad_gpu_nccl_allreduce_fwd(const void *send, void *recv,
                                          size_t count, ncclDataType_t dt,
                                          ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream);
/** send_b += recv_b * d (d = 1 for SUM, 1 / nranks for AVG, the product of
 *  the other ranks' inputs for PROD, exact with zeros, 1 on the owner of
 *  the extreme and 0 elsewhere for MAX/MIN), after one SUM allreduce of
 *  recv_b if partial; recv_b = 0. */
ncclResult_t mpiad_gpu_nccl_allreduce_rev(void *send_b, void *recv_b,
                                          size_t count, ncclDataType_t dt,
                                          ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream, int partial);
ncclResult_t mpiad_gpu_nccl_allreduce_tan(const void *send, const void *send_d,
                                          void *recv, void *recv_d,
                                          size_t count, ncclDataType_t dt,
                                          ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream);

/** ncclReduce to root.  PROD/MAX/MIN record as the allreduce (so that every
 *  rank has its own derivative); only the root writes recv. */
ncclResult_t mpiad_gpu_nccl_reduce_fwd(const void *send, void *recv,
                                       size_t count, ncclDataType_t dt,
                                       ncclRedOp_t op, int root,
                                       ncclComm_t comm, cudaStream_t stream);
/** The root broadcasts recv_b; every rank accumulates recv_b * d into
 *  send_b; the root zeroes recv_b (in place at the root: recv_b = the
 *  contribution). */
ncclResult_t mpiad_gpu_nccl_reduce_rev(void *send_b, void *recv_b,
                                       size_t count, ncclDataType_t dt,
                                       ncclRedOp_t op, int root,
                                       ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_reduce_tan(const void *send, const void *send_d,
                                       void *recv, void *recv_d, size_t count,
                                       ncclDataType_t dt, ncclRedOp_t op,
                                       int root, ncclComm_t comm,
                                       cudaStream_t stream);

/** ncclBroadcast from root. */
ncclResult_t mpiad_gpu_nccl_broadcast_fwd(const void *send, void *recv,
                                          size_t count, ncclDataType_t dt,
                                          int root, ncclComm_t comm,
                                          cudaStream_t stream);
/** partial: one SUM reduce of recv_b to the root; exact: the root's own.
 *  The root adds that to send_b (in place: keeps it in recv_b); recv_b = 0
 *  elsewhere. */
ncclResult_t mpiad_gpu_nccl_broadcast_rev(void *send_b, void *recv_b,
                                          size_t count, ncclDataType_t dt,
                                          int root, ncclComm_t comm,
                                          cudaStream_t stream, int partial);
ncclResult_t mpiad_gpu_nccl_broadcast_tan(const void *send, const void *send_d,
                                          void *recv, void *recv_d,
                                          size_t count, ncclDataType_t dt,
                                          int root, ncclComm_t comm,
                                          cudaStream_t stream);

/** ncclAllGather (recv holds nranks * sendcount elements). */
ncclResult_t mpiad_gpu_nccl_allgather_fwd(const void *send, void *recv,
                                          size_t sendcount, ncclDataType_t dt,
                                          ncclComm_t comm,
                                          cudaStream_t stream);
/** exact: send_b += this rank's block of recv_b; partial: one SUM
 *  reduce-scatter of recv_b gives the block's adjoint.  recv_b = 0. */
ncclResult_t mpiad_gpu_nccl_allgather_rev(void *send_b, void *recv_b,
                                          size_t sendcount, ncclDataType_t dt,
                                          ncclComm_t comm, cudaStream_t stream,
                                          int partial);
ncclResult_t mpiad_gpu_nccl_allgather_tan(const void *send, const void *send_d,
                                          void *recv, void *recv_d,
                                          size_t sendcount, ncclDataType_t dt,
                                          ncclComm_t comm,
                                          cudaStream_t stream);

/** ncclReduceScatter with ncclSum or ncclAvg (send holds nranks *
 *  recvcount elements). */
ncclResult_t mpiad_gpu_nccl_reducescatter_fwd(const void *send, void *recv,
                                              size_t recvcount,
                                              ncclDataType_t dt, ncclRedOp_t op,
                                              ncclComm_t comm,
                                              cudaStream_t stream);
/** One allgather of recv_b: send_b += it (/ nranks for AVG); recv_b = 0. */
ncclResult_t mpiad_gpu_nccl_reducescatter_rev(void *send_b, void *recv_b,
                                              size_t recvcount,
                                              ncclDataType_t dt, ncclRedOp_t op,
                                              ncclComm_t comm,
                                              cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_reducescatter_tan(
    const void *send, const void *send_d, void *recv, void *recv_d,
    size_t recvcount, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t comm,
    cudaStream_t stream);

/* Point to point between ncclGroupStart and ncclGroupEnd.  The forward
 * helpers make the call and record the peer and count.  The reverse of a
 * group is a group: _group_end_rev opens it (ncclGroupStart), _recv_rev sends
 * recv_b (zeros if NULL) back to the recorded peer, _send_rev receives the
 * adjoint of the message from it into a device buffer of the group, and
 * _group_start_rev closes the group (ncclGroupEnd), then zeroes each recv_b
 * and adds each received adjoint to its send_b, on the calls' streams.  The
 * tangent helpers send the value, then the tangent (zeros if NULL), to the
 * same peer, in a group opened by _group_start_tan and closed by
 * _group_end_tan.  The send, receive and tangent helpers abort outside such
 * a group. */
ncclResult_t mpiad_gpu_nccl_send_fwd(const void *send, size_t count,
                                     ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_recv_fwd(void *recv, size_t count,
                                     ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_group_end_rev(void);
ncclResult_t mpiad_gpu_nccl_send_rev(void *send_b, size_t count,
                                     ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_recv_rev(void *recv_b, size_t count,
                                     ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_group_start_rev(void);
ncclResult_t mpiad_gpu_nccl_group_start_tan(void);
ncclResult_t mpiad_gpu_nccl_send_tan(const void *send, const void *send_d,
                                     size_t count, ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_recv_tan(void *recv, void *recv_d, size_t count,
                                     ncclDataType_t dt, int peer,
                                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t mpiad_gpu_nccl_group_end_tan(void);

/** Records of the NCCL helpers not yet reversed (0 after a complete
 *  adjoint). */
size_t mpiad_gpu_nccl_record_count(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MPIAD_GPU_NCCL_H */
