/*
 * pmpi_count.h - counts the communication calls a program makes, through the
 * MPI profiling interface (PMPI).
 *
 * Linking pmpi_count.c into a program replaces MPI_Allreduce, MPI_Reduce,
 * MPI_Bcast, MPI_Allgather, MPI_Reduce_scatter(_block), MPI_Send, MPI_Recv and
 * MPI_Sendrecv by wrappers that count the call and its payload, then call the
 * PMPI_ version.  Calls made from libraries linked statically into the program
 * (libmpiad.a, say) are counted too.  MPI_Barrier is deliberately not counted
 * (the benchmark uses it for timing).
 *
 * Bytes are counted from this rank's point of view, per call: the size of the
 * contribution (count * type size of the send side; for MPI_Recv, of the
 * receive buffer; for MPI_Sendrecv, send plus receive).
 */
#ifndef PMPI_COUNT_H
#define PMPI_COUNT_H

typedef struct {
  /* Allreduce, Reduce, Bcast, Allgather, Reduce_scatter(_block) */
  long long coll_calls;
  long long coll_bytes;
  /* Send, Recv, Sendrecv */
  long long p2p_calls;
  long long p2p_bytes;
} pmpi_counts;

/** Sets every counter of this rank to zero. */
void pmpi_count_reset(void);

/** Returns this rank's counters since the last reset. */
pmpi_counts pmpi_count_read(void);

#endif /* PMPI_COUNT_H */
