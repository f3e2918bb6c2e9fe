// Neighbourhood collectives on values that carry derivatives
// (runtime/neighbor.c): the adjoint is the exchange on the transposed
// topology.
//   Fring: a periodic 1-D Cartesian communicator made in the function (at 1
//          and 2 ranks a process is its own, or its only, neighbour on both
//          sides), MPI_Neighbor_alltoall and MPI_Neighbor_allgather;
//   Fgrid: a non-periodic 2-D Cartesian communicator passed in
//          (MPI_PROC_NULL neighbours at the edges), MPI_Neighbor_alltoallv
//          with blocks of different sizes;
//   Fdist: a distributed graph whose edges are not mutual (rank r sends to
//          r + 1 and r + 2, receives from r - 1 and r - 2), made by
//          MPI_Dist_graph_create_adjacent in the function,
//          MPI_Neighbor_alltoall and MPI_Neighbor_allgatherv;
//   Fgraph: MPI_Graph_create on a ring, MPI_Neighbor_allgather.
// Reverse mode against central differences, forward mode against reverse
// (the dot-product test), at 1-4 ranks; FileCheck of the helpers called.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double Fring_b(
// GEN: /* MPI_Comm_free(&ring) happens in the reverse sweep */
// GEN: mpiad_neighbor_allgather_rev(v_b, K, g_b, K, MPI_DOUBLE, ring);
// GEN: mpiad_neighbor_alltoall_rev(s_b, K, t_b, K, MPI_DOUBLE, ring);
// GEN: MPI_Comm_free(&ring);
// GEN: double Fgrid_b(
// GEN: mpiad_neighbor_alltoallv_rev(s_b, sc, sd, t_b, rc, rd, MPI_DOUBLE, grid);
// GEN: double Fdist_b(
// GEN: mpiad_neighbor_allgatherv_rev(v_b, K, g_b, rc, rd, MPI_DOUBLE, dg);
// GEN: mpiad_neighbor_alltoall_rev(s_b, K, t_b, K, MPI_DOUBLE, dg);
// GEN: double Fgraph_b(
// GEN: mpiad_neighbor_allgather_rev(v_b, K, g_b, K, MPI_DOUBLE, gr);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define K 2
#define N 8

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fring(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int dims[1] = {P}, periods[1] = {1};
  MPI_Comm ring;
  MPI_Cart_create(comm, 1, dims, periods, 0, &ring);
  /* block 0 goes to the left neighbour, block 1 to the right one */
  double s[2 * K], t[2 * K], v[K], g[2 * K];
  for (int k = 0; k < 2 * K; k++) {
    s[k] = x[k] * x[k + 1] + (k + 1.0) * x[k + 2];
    t[k] = 0.0;
  }
  for (int k = 0; k < K; k++)
    v[k] = sin(x[k + 4]);
  MPI_Neighbor_alltoall(s, K, MPI_DOUBLE, t, K, MPI_DOUBLE, ring);
  MPI_Neighbor_allgather(v, K, MPI_DOUBLE, g, K, MPI_DOUBLE, ring);
  MPI_Comm_free(&ring);
  double l = 0.0;
  for (int k = 0; k < 2 * K; k++)
    l += t[k] * t[k] * (1.0 + 0.5 * k + 0.3 * r) + g[k] * g[k] * g[k] * (2.0 + k);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fgrid(const double *x, MPI_Comm grid) {
  int r;
  MPI_Comm_rank(grid, &r);
  /* neighbours: -dim0, +dim0, -dim1, +dim1; block j has j + 1 elements */
  int sc[4], sd[4], rc[4], rd[4];
  for (int j = 0; j < 4; j++) {
    sc[j] = j + 1;
    sd[j] = j == 0 ? 0 : sd[j - 1] + sc[j - 1];
  }
  /* what comes from neighbour j was its block for the opposite side */
  for (int j = 0; j < 4; j++) {
    rc[j] = (j ^ 1) + 1;
    rd[j] = j == 0 ? 0 : rd[j - 1] + rc[j - 1];
  }
  /* an edge of the grid receives nothing there: t keeps its value */
  double s[10], t[10];
  for (int k = 0; k < 10; k++)
    s[k] = x[k % N] * (1.0 + 0.1 * k) + x[(k + 1) % N] * x[(k + 2) % N];
  for (int k = 0; k < 10; k++)
    t[k] = x[k % N];
  MPI_Neighbor_alltoallv(s, sc, sd, MPI_DOUBLE, t, rc, rd, MPI_DOUBLE, grid);
  double l = 0.0;
  for (int k = 0; k < 10; k++)
    l += t[k] * t[k] * t[k] * (1.0 + 0.1 * k + 0.3 * r);
  for (int k = 0; k < 10; k++)
    l += 0.5 * s[k] * s[k];
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fdist(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  int dst[2] = {(r + 1) % P, (r + 2) % P};
  int src[2] = {(r + P - 1) % P, (r + 2 * P - 2) % P};
  MPI_Comm dg;
  MPI_Dist_graph_create_adjacent(comm, 2, src, MPI_UNWEIGHTED, 2, dst,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
  double s[2 * K], t[2 * K], v[K], g[2 * K + 1];
  for (int k = 0; k < 2 * K; k++) {
    s[k] = x[k] * (1.0 + x[k + 3]);
    t[k] = 0.0;
  }
  for (int k = 0; k < K; k++)
    v[k] = x[k + 6] * x[k + 5];
  for (int k = 0; k < 2 * K + 1; k++)
    g[k] = x[k];
  /* the first source's block lands at 0, the second's at K + 1 */
  int rc[2] = {K, K}, rd[2] = {0, K + 1};
  MPI_Neighbor_alltoall(s, K, MPI_DOUBLE, t, K, MPI_DOUBLE, dg);
  MPI_Neighbor_allgatherv(v, K, MPI_DOUBLE, g, rc, rd, MPI_DOUBLE, dg);
  MPI_Comm_free(&dg);
  double l = 0.0;
  for (int k = 0; k < 2 * K; k++)
    l += t[k] * t[k] * (1.0 + 0.5 * k + 0.3 * r);
  for (int k = 0; k < 2 * K + 1; k++)
    l += g[k] * g[k] * g[k] * (1.0 + 0.2 * k + 0.3 * r);
  return l;
}

#pragma mpiad differentiate wrt(x) varying(x)
#pragma mpiad differentiate forward wrt(x)
double Fgraph(const double *x, MPI_Comm comm) {
  int r, P;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  /* a ring: node q's neighbours are q - 1 and q + 1 */
  int index[4], edges[8];
  for (int q = 0; q < P; q++) {
    index[q] = 2 * (q + 1);
    edges[2 * q] = (q + P - 1) % P;
    edges[2 * q + 1] = (q + 1) % P;
  }
  MPI_Comm gr;
  MPI_Graph_create(comm, P, index, edges, 0, &gr);
  double v[K], g[2 * K];
  for (int k = 0; k < K; k++)
    v[k] = x[k] * x[k + 2] + cos(x[k + 4]);
  MPI_Neighbor_allgather(v, K, MPI_DOUBLE, g, K, MPI_DOUBLE, gr);
  MPI_Comm_free(&gr);
  double l = 0.0;
  for (int k = 0; k < 2 * K; k++)
    l += g[k] * g[k] * (1.0 + 0.5 * k + 0.3 * r);
  return l;
}

static int which; /* 0 Fring, 1 Fgrid, 2 Fdist, 3 Fgraph */
static MPI_Comm grid_g;

static double F(const double *x) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fring(x, c) : which == 1 ? Fgrid(x, grid_g)
       : which == 2 ? Fdist(x, c) : Fgraph(x, c);
}
static double B(const double *x, double *xb) {
  MPI_Comm c = MPI_COMM_WORLD;
  return which == 0 ? Fring_b(x, xb, c, 1.0)
       : which == 1 ? Fgrid_b(x, xb, grid_g, 1.0)
       : which == 2 ? Fdist_b(x, xb, c, 1.0) : Fgraph_b(x, xb, c, 1.0);
}
static void D(const double *x, double *xd, double *dot) {
  MPI_Comm c = MPI_COMM_WORLD;
  if (which == 0)
    Fring_d(x, xd, c, dot);
  else if (which == 1)
    Fgrid_d(x, xd, grid_g, dot);
  else if (which == 2)
    Fdist_d(x, xd, c, dot);
  else
    Fgraph_d(x, xd, c, dot);
}
/* Each rank returns its share; the objective is their sum. */
static double J(void *p) { return hx_sum(F(p)); }

static void check(const char *name, int w, unsigned long long seed) {
  which = w;
  hx_check_shares(name, J, B, D, N, seed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int dims[2] = {0, 0}, periods[2] = {0, 0};
  MPI_Dims_create(hx_size_g, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid_g);
  check("Fring", 0, 501);
  check("Fgrid", 1, 511);
  check("Fdist", 2, 521);
  check("Fgraph", 3, 531);
  MPI_Comm_free(&grid_g);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
