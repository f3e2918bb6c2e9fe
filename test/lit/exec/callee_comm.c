// Communication in same-file helpers (tool/lib/Inline.cpp): a global sum
// helper, a helper calling it twice (two levels), called from a loop and
// after it; a halo exchange split into start_exchange (Irecv/Isend into the
// caller's request array) and finish_exchange (Waitall); the communicator
// held in a local. Checks: value, the tape, central differences in x and
// theta together, and that the reverse sweep issues no collective but the
// one fused reduction of the replicated theta's gradient (the helpers'
// results are replicated and feed replicated code).
// RUN: %mpiad-cc %s %S/../Inputs/pmpi_count.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: /* inlined: start_exchange(u, n, left, right, c, reqs) */
// GEN: /* inlined: finish_exchange(reqs) */
// GEN: /* inlined: gmean_sq(&u[1], n, c) */
// GEN: /* inlined: gsum({{.*}}, comm) */
// GEN: /* reverse sweep */
// GEN-NOT: MPI_Allreduce
// GEN: mpiad_batch_allreduce(&mpiad_sum);
// GEN-NOT: MPI_Allreduce
// GEN: return mpiad_ret;
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "pmpi_count.h"

/* one level: the global sum */
static double gsum(double v, MPI_Comm comm) {
  double s;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}
/* two levels: the global mean of squares calls gsum twice */
static double gmean_sq(const double *x, int n, MPI_Comm comm) {
  double l = 0.0;
  for (int i = 0; i < n; i++)
    l += x[i] * x[i];
  double cnt = gsum((double)n, comm);
  return gsum(l, comm) / cnt;
}
/* a halo exchange split over two helpers: the requests cross the call boundary */
static void start_exchange(double *u, int n, int left, int right, MPI_Comm comm,
                           MPI_Request *reqs) {
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, comm, &reqs[0]);
  MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, comm, &reqs[1]);
  MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, comm, &reqs[2]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, comm, &reqs[3]);
}
static void finish_exchange(MPI_Request *reqs) {
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
}

#pragma mpiad differentiate wrt(x, theta) varying(x) replicated(theta, n, steps)
double F(const double *x, double theta, int n, int steps, MPI_Comm comm) {
  int rank, size;
  MPI_Comm c = comm; /* a communicator held in a local */
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *u = calloc(n + 2, sizeof(double)), *w = calloc(n + 2, sizeof(double));
  MPI_Request reqs[4];
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  double acc = 0.0;
  for (int t = 0; t < steps; t++) {
    start_exchange(u, n, left, right, c, reqs);
    finish_exchange(reqs);
    for (int i = 1; i <= n; i++)
      w[i] = u[i] + theta * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
    for (int i = 1; i <= n; i++)
      u[i] = w[i];
    acc += gmean_sq(&u[1], n, c) * theta; /* called from a loop */
  }
  double m = gmean_sq(&u[1], n, c);
  free(u);
  free(w);
  return acc + m * m;
}

#define N 5
#define STEPS 3
typedef struct {
  double *x, *theta;
} ctx_t;

static double J(void *p) {
  ctx_t *c = p;
  return F(c->x, *c->theta, N, STEPS, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[N], dx[N], x_b[N] = {0}, theta = 0.3, dtheta = 0.7, theta_b = 0.0;
  hx_rand(x, N, 7, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, N, 8, hx_rank_g, -1.0, 1.0);
  long long c0, b0, c1, b1, c2, b2;
  pmpi_count_get(&c0, &b0);
  double want = F(x, theta, N, STEPS, MPI_COMM_WORLD);
  pmpi_count_get(&c1, &b1);
  double got = F_b(x, x_b, theta, &theta_b, N, STEPS, MPI_COMM_WORLD, 1.0);
  pmpi_count_get(&c2, &b2);
  hx_tape("F_b");
  hx_check("value", got, want, 1e-14, 1e-300);
  /* forward sweep = the primal's collectives; reverse sweep: one fused
     reduction (theta_b), plus the replication check when MPIAD_CHECK is set */
  hx_check("adjoint collectives = primal + 1", (double)(c2 - c1), (double)(c1 - c0 + 1), 0.0,
           1.0);
  ctx_t c = {x, &theta};
  mpiad_input in[2] = {{x, dx, N, 0}, {&theta, &dtheta, 1, 1}};
  double *xb[2] = {x_b, &theta_b};
  hx_grad("dF/d(x, theta)", J, &c, in, 2, xb, 1e-6, 1e-7, 1e-10);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
