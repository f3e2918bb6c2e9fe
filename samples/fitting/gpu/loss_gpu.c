/* The loss of ../logistic.c for the GPU: mpiad-cc --target=cuda turns each
 * loop marked `#pragma mpiad parallel` into a kernel, in loss and in its
 * adjoint loss_b (see docs/gpu.md).  The pointers are device pointers; the
 * scalars and the returned loss are host values.  The host program is
 * train_gpu.c, compiled as C.
 *
 *   mpiad-cc --target=cuda loss_gpu.c train_gpu.c -lm -o logistic_gpu
 *   mpiad-cc --target=cuda --emit-source loss_gpu.c -o loss_gpu.cu   (to read)
 */
#include <math.h>
#include <mpi.h>

#pragma mpiad differentiate wrt(w, b) replicated(w, b, d, lambda) varying(X, y, n)
double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, double lambda, MPI_Comm comm) {
  double local = 0.0;
  /* One sample per iteration: a kernel whose sum `local` is a block
   * reduction; the adjoint kernel computes z and m again. */
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    double z = b;
    for (int j = 0; j < d; j++)
      z += w[j] * X[i * d + j];
    /* log(1 + exp(m)) without overflow for large m */
    double m = -y[i] * z;
    if (m > 0.0)
      local += m + log(1.0 + exp(-m));
    else
      local += log(1.0 + exp(m));
  }
  double count = n;
  double total = 0.0, total_count = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&count, &total_count, 1, MPI_DOUBLE, MPI_SUM, comm);

  double reg = 0.0;
#pragma mpiad parallel
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  return total / total_count + 0.5 * lambda * reg;
}
