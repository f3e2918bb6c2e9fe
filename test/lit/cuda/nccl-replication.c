// Which NCCL communicators carry the replication of the function's MPI
// communicator: one made by ncclCommInitRank from an id that one MPI_Bcast
// over comm gave every rank (the adjoint of the AllReduce's result is then
// exact: partial = 0); not when the id is assigned afterwards, nor when it
// was broadcast over another communicator (partial = 1).
// RUN: %mpiad-emit --target=cuda -I%S/../Inputs/cuda_emu %s -o - | FileCheck %s
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double same(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  double *y = malloc((size_t)n * sizeof(double));
  ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}
// CHECK-LABEL: extern "C" double same_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 0);

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double reassigned(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id, mine;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  ncclGetUniqueId(&mine);
  id = mine;
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  double *y = malloc((size_t)n * sizeof(double));
  ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}
// CHECK-LABEL: extern "C" double reassigned_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 1);

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double other(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm half;
  MPI_Comm_split(comm, rank % 2, rank, &half);
  MPI_Comm_size(half, &size);
  MPI_Comm_rank(half, &rank);
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, half);
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  double *y = malloc((size_t)n * sizeof(double));
  ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  MPI_Comm_free(&half);
  return J;
}
// CHECK-LABEL: extern "C" double other_b(
// CHECK:         mpiad_gpu_nccl_allreduce_rev(x_b, y_b, n, ncclDouble, ncclSum, nc, st, 1);
