/* Corpus program: a Jacobi iteration for -u'' = f on [0, 1], split into
 * blocks over the ranks, iterated until the global change falls under a
 * tolerance, in the shape of the MPI Jacobi exercises of textbooks and
 * courses (Gropp, Lusk and Skjellum's "Using MPI", ch. 4; the jacobi.c of
 * many course repositories): MPI_PROC_NULL neighbours at the ends,
 * MPI_Sendrecv of the ghost points, an MPI_Allreduce with MPI_MAX of the
 * change in the `while` condition's variable, and the two arrays swapped
 * by pointer. Written for mpiad (its idioms, not any one text).
 * The objective is the discrete energy 0.5 h sum u^2 of the solution; its
 * gradient is taken with respect to the source f.
 * The only mpiad edit: the pragma before solve_energy.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/jacobi1d_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(f) varying(f, nlocal) replicated(h, tol, maxit)
double solve_energy(const double *f, int nlocal, double h, double tol, int maxit,
                    MPI_Comm comm) {
  int rank, size, left, right, i, iter = 0;
  double diff = 1.0, gdiff = 1.0, local_e = 0.0, energy;
  double *u = calloc(nlocal + 2, sizeof(double));
  double *unew = calloc(nlocal + 2, sizeof(double));
  double *tmp;
  MPI_Status status;

  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  while (gdiff > tol && iter < maxit) {
    /* exchange ghost points: send right, receive left; then the reverse */
    MPI_Sendrecv(&u[nlocal], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, comm,
                 &status);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[nlocal + 1], 1, MPI_DOUBLE, right, 1, comm,
                 &status);
    diff = 0.0;
    for (i = 1; i <= nlocal; i++) {
      unew[i] = 0.5 * (u[i - 1] + u[i + 1] + h * h * f[i - 1]);
      diff = fmax(diff, fabs(unew[i] - u[i]));
    }
    tmp = u;
    u = unew;
    unew = tmp;
    MPI_Allreduce(&diff, &gdiff, 1, MPI_DOUBLE, MPI_MAX, comm);
    iter++;
  }
  for (i = 1; i <= nlocal; i++)
    local_e += 0.5 * h * u[i] * u[i];
  MPI_Allreduce(&local_e, &energy, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(u);
  free(unew);
  return energy;
}

int main(void) {
  int rank, size, n = 64;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int nlocal = n / size + (rank < n % size);
  double h = 1.0 / (n + 1);
  double *f = malloc(nlocal * sizeof(double));
  for (int i = 0; i < nlocal; i++)
    f[i] = 1.0;
  double e = solve_energy(f, nlocal, h, 1e-10, 100000, MPI_COMM_WORLD);
  if (rank == 0)
    printf("energy %.12e\n", e);
  free(f);
  MPI_Finalize();
  return 0;
}
