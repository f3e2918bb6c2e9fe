/* Corpus program: conjugate gradients for the 1-D Poisson matrix, rows split
 * over the ranks, in the shape of the CG kernels of course repositories and
 * mini-apps (HPCCG, the NAS CG's structure, textbook cg.c): the solver calls
 * a ddot() helper that ends in MPI_Allreduce and a matvec() helper that
 * exchanges ghost values with MPI_Sendrecv; vectors are malloc'd with an
 * allocation check. Written for mpiad (its idioms, not any one text).
 * The objective is 0.5 |x|^2 of the CG solution after a fixed number of
 * steps; its gradient is taken with respect to the right-hand side b.
 *
 * The only mpiad edit: the pragma before cg_energy. mpiad inlines the two
 * helpers into the adjoint, so the replication of ddot's result is decided
 * where it is used: every Allreduce's adjoint is a local copy (no
 * communication in the reverse sweep beyond matvec's transposed Sendrecv).
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/cg_poisson_check.c %harness/pmpi_count.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double ddot(const double *a, const double *b, int n, MPI_Comm comm) {
  double local = 0.0, global;
  for (int i = 0; i < n; i++)
    local += a[i] * b[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
  return global;
}

/* y = A x for A = tridiag(-1, 2, -1); xg has one ghost value on each side. */
static void matvec(double *xg, double *y, int n, int left, int right, MPI_Comm comm) {
  MPI_Sendrecv(&xg[n], 1, MPI_DOUBLE, right, 0, &xg[0], 1, MPI_DOUBLE, left, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&xg[1], 1, MPI_DOUBLE, left, 1, &xg[n + 1], 1, MPI_DOUBLE, right, 1, comm,
               MPI_STATUS_IGNORE);
  for (int i = 1; i <= n; i++)
    y[i - 1] = 2.0 * xg[i] - xg[i - 1] - xg[i + 1];
}

#pragma mpiad differentiate wrt(b) varying(b, n) replicated(steps)
double cg_energy(const double *b, int n, int steps, MPI_Comm comm) {
  int rank, size, left, right, i, k;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double *x = calloc(n, sizeof(double)), *r = malloc(n * sizeof(double));
  double *p = calloc(n + 2, sizeof(double)), *Ap = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) {
    r[i] = b[i];
    p[i + 1] = b[i];
  }
  double rr = ddot(r, r, n, comm);
  for (k = 0; k < steps; k++) {
    matvec(p, Ap, n, left, right, comm);
    double alpha = rr / ddot(&p[1], Ap, n, comm);
    for (i = 0; i < n; i++) {
      x[i] += alpha * p[i + 1];
      r[i] -= alpha * Ap[i];
    }
    double rr_new = ddot(r, r, n, comm);
    double beta = rr_new / rr;
    rr = rr_new;
    for (i = 0; i < n; i++)
      p[i + 1] = r[i] + beta * p[i + 1];
  }
  double e = 0.5 * ddot(x, x, n, comm);
  free(x);
  free(r);
  free(p);
  free(Ap);
  return e;
}

int main(void) {
  int rank, size, n = 8;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    b[i] = 1.0 + 0.1 * (rank * n + i);
  double e = cg_energy(b, n, 5, MPI_COMM_WORLD);
  if (rank == 0)
    printf("energy %.12e\n", e);
  free(b);
  MPI_Finalize();
  return 0;
}
