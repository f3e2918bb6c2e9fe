/* Corpus program: the trapezoidal rule of Pacheco's "An Introduction to
 * Parallel Programming" (mpi_trap2.c, ch. 3), as it is taught: a serial
 * Trap() helper, each rank integrating its own subinterval, and an MPI_Reduce
 * of the local integrals to rank 0. Written for mpiad in that program's shape
 * (its idioms, not its text). The objective is the integral; its gradient is
 * taken with respect to the end points a and b.
 * The only mpiad edit: the pragma before Integrate.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/trap_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

double f(double x);
double Trap(double left_endpt, double right_endpt, int trap_count, double base_len);

#pragma mpiad differentiate wrt(a, b) replicated(a, b, n)
double Integrate(double a, double b, int n, MPI_Comm comm) {
  int my_rank, comm_sz, local_n;
  double h, local_a, local_b;
  double local_int, total_int = 0.0;

  MPI_Comm_rank(comm, &my_rank);
  MPI_Comm_size(comm, &comm_sz);

  h = (b - a) / n;        /* h is the same for all processes */
  local_n = n / comm_sz;  /* So is the number of trapezoids  */

  /* Length of each process' interval of integration = local_n*h. */
  local_a = a + my_rank * local_n * h;
  local_b = local_a + local_n * h;
  local_int = Trap(local_a, local_b, local_n, h);

  /* Add up the integrals calculated by each process */
  MPI_Reduce(&local_int, &total_int, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  return total_int;
}

double Trap(double left_endpt, double right_endpt, int trap_count, double base_len) {
  double estimate, x;
  int i;

  estimate = (f(left_endpt) + f(right_endpt)) / 2.0;
  for (i = 1; i <= trap_count - 1; i++) {
    x = left_endpt + i * base_len;
    estimate += f(x);
  }
  estimate = estimate * base_len;

  return estimate;
}

double f(double x) {
  return x * x * exp(-0.5 * x);
}

int main(void) {
  int my_rank, n = 1024;
  double a = 0.0, b = 3.0, total_int;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  total_int = Integrate(a, b, n, MPI_COMM_WORLD);
  if (my_rank == 0) {
    printf("With n = %d trapezoids, our estimate\n", n);
    printf("of the integral from %f to %f = %.15e\n", a, b, total_int);
  }
  MPI_Finalize();
  return 0;
}
