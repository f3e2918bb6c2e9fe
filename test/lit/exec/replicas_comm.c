// replicas(...) with every kind of communication (tool/lib/Replicas.cpp):
// a blocking halo exchange (Sendrecv), a non-blocking one (Irecv/Isend/
// Waitall), Allreduce SUM/MAX/PROD, Allgather from a fixed per-replica
// array, Reduce then Bcast; a per-replica scalar parameter s, and a branch
// on per-replica values.  For each replica r (a different seed each), in
// reverse mode (G_bv) and forward mode (G_dv): the value equals the primal
// on replica r's inputs, and the derivative along (du, ds) matches central
// differences of the primal (independent of the tool); the adjoint and the
// tangent agree (the dot-product test).  G_bv issues as many collective
// calls as one G_b.
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: static void mpiad_G_bv(int R, const double *u0, double *u0_b, const double *s, double *s_b, int n, MPI_Comm comm, double *G_val, double *G_val_b)
// GEN: mpiad_sendrecv_fwd(&u[n * R], R, MPI_DOUBLE, right, 0, &u[0], R, MPI_DOUBLE, left, 0, comm, MPI_STATUS_IGNORE);
// GEN: mpiad_irecv_fwd(&v[(n + 1) * R], &v_b[(n + 1) * R], R, MPI_DOUBLE, right, 3, comm, &req[1]);
// GEN: mpiad_allreduce_fwd(mx, gmx, R, MPI_DOUBLE, MPI_MAX, comm);
// GEN: MPI_Allgather(head, R * 2, MPI_DOUBLE, all, R * 2, MPI_DOUBLE, comm);
// GEN: MPI_Bcast(red, R, MPI_DOUBLE, 0, comm);
// GEN-LABEL: void G_bv(int R, const double *u0, double *u0_b, const double *s, double *s_b, int n, MPI_Comm comm, const double *G_bar, double *G_val)
// GEN-LABEL: void G_dv(int R, const double *u0, double *u0_d, const double *s, double *s_d, int n, MPI_Comm comm, double *G_val, double *G_val_d)
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pmpi_count.h"

#pragma mpiad differentiate wrt(u0, s) replicated(s, n) varying(u0) replicas(u0, s)
#pragma mpiad differentiate forward wrt(u0, s) replicas(u0, s)
double G(const double *u0, double s, int n, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *u = malloc((n + 2) * sizeof(double));
  double *v = malloc((n + 2) * sizeof(double));
  double *all = malloc(2 * size * sizeof(double));
  u[0] = 0.0;
  u[n + 1] = 0.0;
  for (int i = 0; i < n; i++)
    u[i + 1] = u0[i] * s;
  MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
               comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right,
               1, comm, MPI_STATUS_IGNORE);
  double cfac = 1.0; /* assigned only under a per-replica condition */
  for (int i = 1; i <= n; i++) {
    double a = u[i - 1] - 2.0 * u[i] + u[i + 1];
    if (u[i] > 0.0) { /* a branch that differs between replicas */
      v[i] = u[i] + 0.1 * a * a;
      cfac = cfac * 1.5;
    } else {
      v[i] = u[i] - 0.2 * a;
    }
  }
  v[0] = 0.0;
  v[n + 1] = 0.0;
  MPI_Request req[4];
  MPI_Irecv(&v[0], 1, MPI_DOUBLE, left, 2, comm, &req[0]);
  MPI_Irecv(&v[n + 1], 1, MPI_DOUBLE, right, 3, comm, &req[1]);
  MPI_Isend(&v[n], 1, MPI_DOUBLE, right, 2, comm, &req[2]);
  MPI_Isend(&v[1], 1, MPI_DOUBLE, left, 3, comm, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  double loc = 0.0, mx = -1e300, pr = 1.0;
  for (int i = 0; i <= n + 1; i++)
    loc += v[i] * v[i] * (i + 1);
  for (int i = 1; i <= n; i++) {
    if (v[i] > mx)
      mx = v[i];
    pr *= 1.0 + 0.1 * v[i];
  }
  double tot, gmx, gpr;
  MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&mx, &gmx, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&pr, &gpr, 1, MPI_DOUBLE, MPI_PROD, comm);
  double head[2];
  head[0] = v[1];
  head[1] = v[n] * v[n];
  MPI_Allgather(head, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, comm);
  double g = 0.0;
  for (int k = 0; k < 2 * size; k++)
    g += all[k] * (k + 1);
  double red = 0.0;
  MPI_Reduce(&loc, &red, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Bcast(&red, 1, MPI_DOUBLE, 0, comm);
  free(u);
  free(v);
  free(all);
  return tot + gmx + gpr + 0.01 * g + 0.5 * red * s + cfac * s;
}

#define NR 3
#define NL 4

/* sum over ranks of a local dot product */
static double gdot(const double *a, const double *b, int n) {
  double l = 0.0, t = 0.0;
  for (int i = 0; i < n; i++)
    l += a[i] * b[i];
  MPI_Allreduce(&l, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm comm = MPI_COMM_WORLD;
  double u0[NR * NL], du[NR * NL], s[NR] = {0.9, 1.3, -0.7}, ds[NR] = {0.3, -0.6, 0.8};
  hx_rand(u0, NR * NL, 11, hx_rank_g, -1.0, 1.0);
  hx_rand(du, NR * NL, 12, hx_rank_g, -1.0, 1.0);
  double bar[NR] = {1.0, -0.5, 2.0}, val[NR], u0_b[NR * NL], s_b[NR];
  memset(u0_b, 0, sizeof u0_b);
  memset(s_b, 0, sizeof s_b);
  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  G_bv(NR, u0, u0_b, s, s_b, NL, comm, bar, val);
  pmpi_count_get(&c1, &b1);
  double g1[NL], sb1 = 0.0;
  memset(g1, 0, sizeof g1);
  G_b(u0, g1, s[0], &sb1, NL, comm, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("G_bv");
  hx_check("collectives of G_bv = those of one G_b", (double)(c1 - c0),
           (double)(c2 - c1), 0.0, 1.0);
  double val_f[NR], val_d[NR];
  G_dv(NR, u0, du, s, ds, NL, comm, val_f, val_d);

  for (int r = 0; r < NR; r++) {
    char label[128];
    const double *ur = u0 + r * NL, *dur = du + r * NL;
    double want = G(ur, s[r], NL, comm);
    snprintf(label, sizeof label, "replica %d: value of G_bv", r);
    hx_check(label, val[r], want, 1e-13, 1e-300);
    snprintf(label, sizeof label, "replica %d: value of G_dv", r);
    hx_check(label, val_f[r], want, 1e-13, 1e-300);
    double h = 1e-6, up[NL], um[NL];
    for (int k = 0; k < NL; k++) {
      up[k] = ur[k] + h * dur[k];
      um[k] = ur[k] - h * dur[k];
    }
    double fd = (G(up, s[r] + h * ds[r], NL, comm) -
                 G(um, s[r] - h * ds[r], NL, comm)) / (2 * h);
    /* G's value varies over ranks (cfac does), so the objective sums it
       over ranks; u0 varies too: its part of the directional derivative
       sums over ranks, s is replicated and counts once */
    double one = 1.0;
    double ad = gdot(dur, u0_b + r * NL, NL) + ds[r] * s_b[r];
    double fdsum = gdot(&fd, &one, 1), tansum = gdot(&val_d[r], &one, 1);
    snprintf(label, sizeof label, "replica %d: G_bv vs central differences", r);
    hx_check(label, ad, bar[r] * fdsum, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: G_dv vs central differences", r);
    hx_check_each(label, val_d[r], fd, 1e-6, 1e-9);
    snprintf(label, sizeof label, "replica %d: dot-product test", r);
    hx_check(label, ad, bar[r] * tansum, 1e-12, 1e-300);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
