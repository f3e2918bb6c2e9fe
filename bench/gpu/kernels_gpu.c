/* Memory-bound loops for the GPU benchmark (bench/gpu/run.sh), compiled with
 * mpiad-cc --target=cuda: a streaming update (one read and one write per
 * element), and the sum of squares of the fitting and heat samples' misfits
 * (one read per element and a block reduction). */
#include <mpi.h>

/* y = a x^2: reads x, writes y.  Its adjoint reads x, x_b and y_b and writes
 * x_b and y_b, after running the primal (forward sweep). */
#pragma mpiad differentiate wrt(x) output(y) replicated(a) varying(x, n)
void stream(const double *x, double *y, double a, int n) {
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] * x[i];
}

/* sum over ranks of x^2: reads x; the adjoint reads x, writes x_b (fused
 * into the same kernel as the primal). */
#pragma mpiad differentiate wrt(x) varying(x, n)
double sumsq(const double *x, int n, MPI_Comm comm) {
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  double t;
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
