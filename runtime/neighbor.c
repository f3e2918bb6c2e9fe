/*
 * neighbor.c - adjoints of the neighbourhood collectives
 * (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v)) on Cartesian, graph
 * and distributed-graph communicators.
 *
 * The forward call sends block j of the send buffer to destination j and
 * receives block i of the receive buffer from source i.  Its adjoint sends
 * the adjoint of received block i back to source i and receives, from
 * destination j, the adjoint of what went there: one neighbourhood
 * all-to-all on the TRANSPOSED topology (sources and destinations swapped).
 *
 * A Cartesian or graph topology is its own transpose: every neighbour
 * relation is mutual, and MPI matches the k-th message between two
 * processes with the k-th slot for that pair on the other side, so the same
 * communicator serves (a periodic dimension of size 1 or 2, where a process
 * is its own or its only neighbour, included).  A distributed graph gets a
 * transposed copy, made by MPI_Dist_graph_create_adjacent the first time
 * (collective, as the reverse call is) and kept in an attribute of the
 * communicator, freed with it.
 *
 * Element types: MPI_DOUBLE and MPI_FLOAT, the same on both sides.
 */
#include "comm_internal.h"

#include <limits.h>
#include <stdlib.h>

static int transposed_keyval = MPI_KEYVAL_INVALID;

static int transposed_delete(MPI_Comm comm, int keyval, void *attr,
                             void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  MPI_Comm *t = attr;
  if (t) {
    MPI_Comm_free(t);
    free(t);
  }
  return MPI_SUCCESS;
}

/* This process's in- and out-degree in comm's topology, and the communicator
 * on which the adjoint exchange runs. */
static mpiad_result_t topology(MPI_Comm comm, int *indeg, int *outdeg,
                               MPI_Comm *adjoint) {
  int topo;
  MPIAD_CHECK_MPI(MPI_Topo_test(comm, &topo));
  *adjoint = comm;
  if (topo == MPI_CART) {
    int nd;
    MPIAD_CHECK_MPI(MPI_Cartdim_get(comm, &nd));
    *indeg = *outdeg = 2 * nd;
    return MPIAD_SUCCESS;
  }
  if (topo == MPI_GRAPH) {
    int rank, nn;
    MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    MPIAD_CHECK_MPI(MPI_Graph_neighbors_count(comm, rank, &nn));
    *indeg = *outdeg = nn;
    return MPIAD_SUCCESS;
  }
  if (topo != MPI_DIST_GRAPH)
    return MPIAD_ERR_ARG; /* no topology: MPI rejects the call too */
  int weighted;
  MPIAD_CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &weighted));
  if (transposed_keyval == MPI_KEYVAL_INVALID)
    MPIAD_CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                           transposed_delete,
                                           &transposed_keyval, NULL));
  void *attr = NULL;
  int found = 0;
  MPIAD_CHECK_MPI(MPI_Comm_get_attr(comm, transposed_keyval, &attr, &found));
  if (found && attr) {
    *adjoint = *(MPI_Comm *)attr;
    return MPIAD_SUCCESS;
  }
  int *src = malloc((size_t)(*indeg + 1) * sizeof *src);
  int *dst = malloc((size_t)(*outdeg + 1) * sizeof *dst);
  int *sw = malloc((size_t)(*indeg + 1) * sizeof *sw);
  int *dw = malloc((size_t)(*outdeg + 1) * sizeof *dw);
  MPI_Comm *t = malloc(sizeof *t);
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (src && dst && sw && dw && t) {
    r = MPIAD_ERR_MPI;
    if (MPI_Dist_graph_neighbors(comm, *indeg, src, sw, *outdeg, dst, dw) ==
            MPI_SUCCESS &&
        MPI_Dist_graph_create_adjacent(comm, *outdeg, dst, MPI_UNWEIGHTED,
                                       *indeg, src, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, t) == MPI_SUCCESS) {
      if (MPI_Comm_set_attr(comm, transposed_keyval, t) == MPI_SUCCESS) {
        *adjoint = *t;
        t = NULL;
        r = MPIAD_SUCCESS;
      } else {
        MPI_Comm_free(t);
      }
    }
  }
  free(t);
  free(dw);
  free(sw);
  free(dst);
  free(src);
  return r;
}

/* The sources of this process in comm's topology (indeg of them), in the
 * order of the receive blocks: MPI_PROC_NULL where a Cartesian process has
 * no neighbour, and its receive block is left alone. */
static mpiad_result_t sources_of(MPI_Comm comm, int indeg, int *src) {
  int topo;
  MPIAD_CHECK_MPI(MPI_Topo_test(comm, &topo));
  if (topo == MPI_CART) {
    for (int d = 0; 2 * d < indeg; ++d)
      MPIAD_CHECK_MPI(MPI_Cart_shift(comm, d, 1, &src[2 * d], &src[2 * d + 1]));
    return MPIAD_SUCCESS;
  }
  if (topo == MPI_GRAPH) {
    int rank;
    MPIAD_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    MPIAD_CHECK_MPI(MPI_Graph_neighbors(comm, rank, indeg, src));
    return MPIAD_SUCCESS;
  }
  int in, out, weighted;
  MPIAD_CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted));
  int *dst = malloc((size_t)(out + 1) * sizeof *dst);
  int *sw = malloc((size_t)(in + 1) * sizeof *sw);
  int *dw = malloc((size_t)(out + 1) * sizeof *dw);
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (dst && sw && dw)
    r = MPI_Dist_graph_neighbors(comm, indeg, src, sw, out, dst, dw) ==
                MPI_SUCCESS
            ? MPIAD_SUCCESS
            : MPIAD_ERR_MPI;
  free(dw);
  free(sw);
  free(dst);
  return r;
}

int mpiad_neighbor_indegree(MPI_Comm comm) {
  int in = 0, out = 0;
  MPI_Comm a;
  if (topology(comm, &in, &out, &a) != MPIAD_SUCCESS)
    return 0;
  return in;
}

int mpiad_neighbor_outdegree(MPI_Comm comm) {
  int in = 0, out = 0;
  MPI_Comm a;
  if (topology(comm, &in, &out, &a) != MPIAD_SUCCESS)
    return 0;
  return out;
}

int mpiad_neighbor_counts_extent(const int *counts, const int *displs,
                                 MPI_Comm comm) {
  int n = mpiad_neighbor_indegree(comm), end = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0 && displs[i] + counts[i] > end)
      end = displs[i] + counts[i];
  return end;
}

/* The adjoint exchange: blocks of recv_b (NULL: zeros) at rdispls with
 * rcounts back to the sources; G (packed, gcounts per destination, zeroed
 * first) receives what the destinations send back. */
static mpiad_result_t exchange(const void *recv_b, const int *rcounts,
                               const int *rdispls, void *G,
                               const int *gcounts, const int *gdispls,
                               size_t gtotal, MPI_Datatype t, size_t esz,
                               MPI_Comm adjoint, void *zeros, size_t rext) {
  zero(G, 0, gtotal, esz);
  const void *src = recv_b;
  if (!src) {
    zero(zeros, 0, rext, esz);
    src = zeros;
  }
  MPIAD_CHECK_MPI(MPI_Neighbor_alltoallv(src, rcounts, rdispls, t, G, gcounts,
                                         gdispls, t, adjoint));
  return MPIAD_SUCCESS;
}

/* Counts and displacements of `n` blocks of `count` elements, packed. */
static int *uniform(int n, int count, int **displs) {
  int *c = malloc((size_t)(n + 1) * sizeof *c);
  int *d = malloc((size_t)(n + 1) * sizeof *d);
  if (!c || !d) {
    free(c);
    free(d);
    return NULL;
  }
  for (int i = 0; i < n; ++i) {
    c[i] = count;
    d[i] = i * count;
  }
  *displs = d;
  return c;
}

static int *packed(int n, const int *counts, size_t *total) {
  int *d = malloc((size_t)(n + 1) * sizeof *d);
  size_t off = 0;
  if (!d)
    return NULL;
  for (int i = 0; i < n; ++i) {
    d[i] = (int)off;
    off += (size_t)counts[i];
  }
  *total = off;
  return d;
}

/* The common reverse: recv blocks (rcounts/rdispls, indeg of them) go back;
 * what comes back from destination j (scounts[j] elements) is added to
 * send_b at sdispls[j] (all_same: every block adds to send_b[0..scounts[0])
 * as for Neighbor_allgather). */
static mpiad_result_t neighbor_rev(void *send_b, const int *scounts,
                                   const int *sdispls, int all_same,
                                   void *recv_b, const int *rcounts,
                                   const int *rdispls, MPI_Datatype t,
                                   MPI_Comm comm) {
  int kind, indeg, outdeg;
  size_t esz;
  MPI_Comm adjoint;
  if (!type_kind(t, &kind, &esz))
    return MPIAD_ERR_ARG;
  MPIAD_CHECK(topology(comm, &indeg, &outdeg, &adjoint));
  size_t gtotal, rext = 0;
  int *gd = packed(outdeg, scounts, &gtotal);
  if (!gd)
    return MPIAD_ERR_NOMEM;
  for (int i = 0; i < indeg; ++i)
    if (rcounts[i] > 0 && (size_t)(rdispls[i] + rcounts[i]) > rext)
      rext = (size_t)(rdispls[i] + rcounts[i]);
  void *G, *zeros;
  if (!carve(gtotal * esz, &G, recv_b ? 0 : rext * esz, &zeros, 0, NULL, 0,
             NULL)) {
    free(gd);
    return MPIAD_ERR_NOMEM;
  }
  int *src = malloc((size_t)(indeg + 1) * sizeof *src);
  mpiad_result_t r = src ? sources_of(comm, indeg, src) : MPIAD_ERR_NOMEM;
  if (r == MPIAD_SUCCESS)
    r = exchange(recv_b, rcounts, rdispls, G, scounts, gd, gtotal, t,
                 esz, adjoint, zeros, rext);
  if (r == MPIAD_SUCCESS) {
    /* a block received from MPI_PROC_NULL kept its value: its adjoint
     * stays */
    for (int i = 0; i < indeg; ++i)
      if (src[i] != MPI_PROC_NULL)
        zero(recv_b, (size_t)rdispls[i], (size_t)rcounts[i], esz);
    if (send_b)
      for (int j = 0; j < outdeg; ++j)
        acc(at(send_b, all_same ? 0 : (size_t)sdispls[j], esz),
            at(G, (size_t)gd[j], esz), (size_t)scounts[j], kind);
  }
  free(src);
  free(gd);
  return r;
}

/* Neighbor_alltoall (all_same 0) and Neighbor_allgather (all_same 1): blocks
 * of one size on each side. */
static mpiad_result_t uniform_rev(void *send_b, int sendcount, void *recv_b,
                                  int recvcount, MPI_Datatype t, MPI_Comm comm,
                                  int all_same) {
  int indeg, outdeg;
  MPI_Comm adjoint;
  if (sendcount < 0 || recvcount < 0)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK(topology(comm, &indeg, &outdeg, &adjoint));
  int *sd, *rd;
  int *sc = uniform(outdeg, sendcount, &sd);
  int *rc = uniform(indeg, recvcount, &rd);
  mpiad_result_t r = MPIAD_ERR_NOMEM;
  if (sc && rc)
    r = neighbor_rev(send_b, sc, sd, all_same, recv_b, rc, rd, t, comm);
  if (sc) {
    free(sc);
    free(sd);
  }
  if (rc) {
    free(rc);
    free(rd);
  }
  return r;
}

mpiad_result_t mpiad_neighbor_alltoall_rev(void *send_b, int sendcount,
                                           void *recv_b, int recvcount,
                                           MPI_Datatype t, MPI_Comm comm) {
  return uniform_rev(send_b, sendcount, recv_b, recvcount, t, comm, 0);
}

mpiad_result_t mpiad_neighbor_allgather_rev(void *send_b, int sendcount,
                                            void *recv_b, int recvcount,
                                            MPI_Datatype t, MPI_Comm comm) {
  return uniform_rev(send_b, sendcount, recv_b, recvcount, t, comm, 1);
}

mpiad_result_t mpiad_neighbor_alltoallv_rev(void *send_b, const int *sendcounts,
                                            const int *sdispls, void *recv_b,
                                            const int *recvcounts,
                                            const int *rdispls, MPI_Datatype t,
                                            MPI_Comm comm) {
  if (!sendcounts || !sdispls || !recvcounts || !rdispls)
    return MPIAD_ERR_ARG;
  return neighbor_rev(send_b, sendcounts, sdispls, 0, recv_b, recvcounts,
                      rdispls, t, comm);
}

mpiad_result_t mpiad_neighbor_allgatherv_rev(void *send_b, int sendcount,
                                             void *recv_b,
                                             const int *recvcounts,
                                             const int *displs, MPI_Datatype t,
                                             MPI_Comm comm) {
  int indeg, outdeg;
  MPI_Comm adjoint;
  if (sendcount < 0 || !recvcounts || !displs)
    return MPIAD_ERR_ARG;
  MPIAD_CHECK(topology(comm, &indeg, &outdeg, &adjoint));
  int *sd;
  int *sc = uniform(outdeg, sendcount, &sd);
  if (!sc)
    return MPIAD_ERR_NOMEM;
  mpiad_result_t r =
      neighbor_rev(send_b, sc, sd, 1, recv_b, recvcounts, displs, t, comm);
  free(sc);
  free(sd);
  return r;
}
