#include <mpi.h>
#include <stdio.h>

double f_b(double x, double *x_b, double f_bar);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double xb = 0;
  f_b(3.0, &xb, 1.0);
  printf("df/dx = %g\n", xb); /* K * 2 x */
  MPI_Finalize();
  return 0;
}
