/*
 * pmpi_count.c - PMPI wrappers that count communication calls and bytes.
 * See pmpi_count.h.
 */
#include "pmpi_count.h"

#include <mpi.h>

static pmpi_counts counts;

void pmpi_count_reset(void) {
  pmpi_counts zero = {0, 0, 0, 0};
  counts = zero;
}

pmpi_counts pmpi_count_read(void) { return counts; }

static long long type_bytes(int count, MPI_Datatype t) {
  int size = 0;
  PMPI_Type_size(t, &size);
  return (long long)count * size;
}

static void coll(long long bytes) {
  counts.coll_calls++;
  counts.coll_bytes += bytes;
}

static void p2p(long long bytes) {
  counts.p2p_calls++;
  counts.p2p_bytes += bytes;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  coll(type_bytes(count, datatype));
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  coll(type_bytes(count, datatype));
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm) {
  coll(type_bytes(count, datatype));
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  coll(sendbuf == MPI_IN_PLACE ? type_bytes(recvcount, recvtype)
                               : type_bytes(sendcount, sendtype));
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  coll(type_bytes(recvcount, datatype) * size);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                   comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  long long total = 0;
  for (int r = 0; r < size; r++)
    total += recvcounts[r];
  coll(type_bytes(1, datatype) * total);
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm) {
  p2p(type_bytes(count, datatype));
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  p2p(type_bytes(count, datatype));
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status) {
  p2p(type_bytes(sendcount, sendtype) + type_bytes(recvcount, recvtype));
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status);
}
