/* Marked functions with NCCL calls, for the CUDA target tests of
 * rules/nccl.rules (cuda/nccl-codegen.c, cuda/nccl-compile.c,
 * cuda/nccl-emulated.c).  Each makes an NCCL communicator from its MPI
 * communicator (ncclCommInitRank from a unique id that MPI_Bcast sent over
 * comm, so that what AllReduce, Broadcast and AllGather write is replicated),
 * makes one NCCL call (or a group of sends and receives) on the caller's
 * stream, and returns
 *     J = sum_i (1 + i / 8) * y[i]^2
 * of what the call wrote: a replicated value for AllReduce, Broadcast and
 * AllGather (its adjoint exact on every rank, no further communication);
 * for Reduce and ReduceScatter the sum over ranks, through an MPI_Allreduce.
 * One objective on every rank, checked by Inputs/nccl_main.c. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_sum(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_prod(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclAllReduce(x, y, n, ncclDouble, ncclProd, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_max(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclAllReduce(x, y, n, ncclDouble, ncclMax, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_min(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclAllReduce(x, y, n, ncclDouble, ncclMin, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_avg(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclAllReduce(x, y, n, ncclDouble, ncclAvg, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

/* The last rank's x, to every rank. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double bcast(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclBroadcast(x, y, n, ncclDouble, size - 1, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

/* The product to rank 0: only the root's y counts. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double red_prod(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclReduce(x, y, n, ncclDouble, ncclProd, 0, nc, st);
  double s = 0, J;
  if (rank == 0) {
#pragma mpiad parallel
    for (int i = 0; i < n; i++)
      s += (1.0 + i / 8.0) * y[i] * y[i];
  }
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(y);
  ncclCommDestroy(nc);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double gather(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  double *y = malloc((size_t)n * size * sizeof(double));
  ncclAllGather(x, y, n, ncclDouble, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n * size; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

/* x holds size * n values; rank r gets the sum of the ranks' blocks r. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double scatter(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
  ncclReduceScatter(x, y, n, ncclDouble, ncclSum, nc, st);
  double s = 0, J;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += (1.0 + i / 8.0) * y[i] * y[i];
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(y);
  ncclCommDestroy(nc);
  return J;
}

/* The in-place broadcast of the older API, from rank 0: y is x there. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double bcast_inplace(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
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
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i];
  ncclBcast(y, n, ncclDouble, 0, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * y[i] * y[i];
  free(y);
  ncclCommDestroy(nc);
  return J;
}

/* A ring: each rank sends x to the right and receives the left one's into
 * y, and sends w, which carries no derivative, to the left (its adjoint is
 * zeros, still sent), in one group. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ring(const double *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double *y = malloc((size_t)n * sizeof(double));
  double *w = malloc((size_t)n * sizeof(double));
  double *v = malloc((size_t)n * sizeof(double));
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    w[i] = 1.0 + i + rank;
  ncclGroupStart();
  ncclSend(x, n, ncclDouble, right, nc, st);
  ncclRecv(y, n, ncclDouble, left, nc, st);
  ncclSend(w, n, ncclDouble, left, nc, st);
  ncclRecv(v, n, ncclDouble, right, nc, st);
  ncclGroupEnd();
  double s = 0, J;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += (1.0 + i / 8.0) * x[i] * y[i] * y[i] + v[i] * x[i];
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(y);
  free(w);
  free(v);
  ncclCommDestroy(nc);
  return J;
}

/* An NCCL communicator passed in: nothing says which ranks it has, so what
 * the AllReduce writes is varying, and the adjoint of y is a per-rank share
 * summed over ranks in the reverse sweep (partial).  nc must have the ranks
 * of comm. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_sum_nc(const double *x, int n, ncclComm_t nc, MPI_Comm comm,
                 cudaStream_t st) {
  double *y = malloc((size_t)n * sizeof(double));
  ncclAllReduce(x, y, n, ncclDouble, ncclSum, nc, st);
  double s = 0, J;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += (1.0 + i / 8.0) * y[i] * y[i];
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(y);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double gather_nc(const double *x, int n, ncclComm_t nc, MPI_Comm comm,
                 cudaStream_t st) {
  int size;
  MPI_Comm_size(comm, &size);
  double *y = malloc((size_t)n * size * sizeof(double));
  ncclAllGather(x, y, n, ncclDouble, nc, st);
  double s = 0, J;
#pragma mpiad parallel
  for (int i = 0; i < n * size; i++)
    s += (1.0 + i / 8.0) * y[i] * y[i];
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(y);
  return J;
}

/* Float data: the product over ranks (with zeros) and the maximum. */
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
#pragma mpiad differentiate forward wrt(x)
double ar_prod_max_f(const float *x, int n, MPI_Comm comm, cudaStream_t st) {
  /* The NCCL communicator of comm */
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  if (rank == 0)
    ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  ncclComm_t nc;
  ncclCommInitRank(&nc, size, id, rank);
  float *p = malloc((size_t)n * sizeof(float));
  float *m = malloc((size_t)n * sizeof(float));
  ncclAllReduce(x, p, n, ncclFloat, ncclProd, nc, st);
  ncclAllReduce(x, m, n, ncclFloat32, ncclMax, nc, st);
  double J = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    J += (1.0 + i / 8.0) * p[i] * m[i];
  free(p);
  free(m);
  ncclCommDestroy(nc);
  return J;
}
