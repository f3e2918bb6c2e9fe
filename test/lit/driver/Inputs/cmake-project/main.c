#include <mpi.h>
#include <stdio.h>

#include "sumsq.h"

/* f = sum x_i^2: the gradient is 2 x, checked against the adjoint. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[3] = {1.5, -2.0, 0.25}, xb[3] = {0, 0, 0};
  double f = sumsq_b(x, xb, 3, 1.0);
  int ok = 1;
  for (int i = 0; i < 3; i++)
    if (xb[i] != 2 * x[i])
      ok = 0;
  printf("f = %g, grad = %g %g %g: %s\n", f, xb[0], xb[1], xb[2],
         ok ? "OK" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 1;
}
