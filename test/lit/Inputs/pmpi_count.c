/* pmpi_count.c - PMPI interposition: every collective below counts one call
 * and the bytes of its payload (the result's size: count elements for
 * Allreduce/Reduce/Bcast/Scan/Exscan, the whole gathered or scattered buffer
 * for the gather/scatter family, the send buffer for Reduce_scatter), then
 * calls PMPI_*.  Linked into a test program, it also counts the calls made by
 * libmpiad (a static library). */
#include <mpi.h>

#include "pmpi_count.h"

static long long calls_g, bytes_g;

static void count(int n, MPI_Datatype t) {
  int sz = 0;
  PMPI_Type_size(t, &sz);
  calls_g++;
  bytes_g += (long long)n * sz;
}
static int csize(MPI_Comm c) {
  int p = 1;
  PMPI_Comm_size(c, &p);
  return p;
}

void pmpi_count_get(long long *calls, long long *bytes) {
  *calls = calls_g;
  *bytes = bytes_g;
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                  MPI_Comm c) {
  count(n, t);
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
               int root, MPI_Comm c) {
  count(n, t);
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  count(n, t);
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
             MPI_Comm c) {
  count(n, t);
  return PMPI_Scan(s, r, n, t, op, c);
}
int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
               MPI_Comm c) {
  count(n, t);
  return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, MPI_Comm c) {
  count(rn * csize(c), rt);
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r,
                   const int *rn, const int *d, MPI_Datatype rt, MPI_Comm c) {
  int tot = 0;
  for (int q = 0, p = csize(c); q < p; q++)
    tot += rn[q];
  count(tot, rt);
  return PMPI_Allgatherv(s, sn, st, r, rn, d, rt, c);
}
int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
               MPI_Datatype rt, int root, MPI_Comm c) {
  count(sn * csize(c), st);
  return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}
int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                MPI_Datatype rt, int root, MPI_Comm c) {
  count(rn * csize(c), rt);
  return PMPI_Scatter(s, sn, st, r, rn, rt, root, c);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int rn, MPI_Datatype t,
                             MPI_Op op, MPI_Comm c) {
  count(rn * csize(c), t);
  return PMPI_Reduce_scatter_block(s, r, rn, t, op, c);
}
int MPI_Reduce_scatter(const void *s, void *r, const int *rn, MPI_Datatype t,
                       MPI_Op op, MPI_Comm c) {
  int tot = 0;
  for (int q = 0, p = csize(c); q < p; q++)
    tot += rn[q];
  count(tot, t);
  return PMPI_Reduce_scatter(s, r, rn, t, op, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, MPI_Comm c) {
  count(sn * csize(c), st);
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Barrier(MPI_Comm c) {
  calls_g++;
  return PMPI_Barrier(c);
}
