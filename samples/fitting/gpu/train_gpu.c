/* Host program of the GPU fitting sample: the data stay on the GPU, the
 * model w lives there too, and loss_b (generated from loss_gpu.c by mpiad-cc
 * --target=cuda) returns the loss and accumulates the gradient into device
 * w_b and host b_b.  Checks, printed and reflected in the exit status:
 *   - the GPU loss and gradient equal those of a plain C evaluation on the
 *     host (relative 1e-12), at the start;
 *   - the gradient matches a central difference of the GPU loss;
 *   - gradient descent lowers the loss.
 * Exits 77 (skipped) when there is no CUDA device.
 *
 *   mpirun -np 2 ./logistic_gpu [samples_per_rank d steps lr]
 */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, double lambda, MPI_Comm comm);
double loss_b(const double *w, double *w_b, double b, double *b_b,
              const double *X, const double *y, int n, int d, double lambda,
              MPI_Comm comm, double loss_bar);

/* 64-bit LCG; uniform double in [0, 1). */
static double uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* The reference: the same loss and its gradient, written out on the host. */
static double host_loss(const double *w, double b, const double *X,
                        const double *y, int n, int d, double lambda,
                        double *gw, double *gb, MPI_Comm comm) {
  double local = 0.0, gbl = 0.0;
  double *g = calloc((size_t)d, sizeof *g);
  for (int i = 0; i < n; i++) {
    double z = b;
    for (int j = 0; j < d; j++)
      z += w[j] * X[(size_t)i * d + j];
    double m = -y[i] * z, sig = 1.0 / (1.0 + exp(-m));
    local += m > 0.0 ? m + log(1.0 + exp(-m)) : log(1.0 + exp(m));
    for (int j = 0; j < d; j++)
      g[j] += sig * -y[i] * X[(size_t)i * d + j];
    gbl += sig * -y[i];
  }
  double total, N, count = n;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&count, &N, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(g, gw, d, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&gbl, gb, 1, MPI_DOUBLE, MPI_SUM, comm);
  double reg = 0.0;
  for (int j = 0; j < d; j++) {
    reg += w[j] * w[j];
    gw[j] = gw[j] / N + lambda * w[j];
  }
  *gb /= N;
  free(g);
  return total / N + 0.5 * lambda * reg;
}

static double *to_device(const double *h, size_t n) {
  double *p = NULL;
  if (cudaMalloc((void **)&p, (n ? n : 1) * sizeof *p) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (n)
    cudaMemcpy(p, h, n * sizeof *p, cudaMemcpyHostToDevice);
  return p;
}

static int close_to(double a, double b, double rtol) {
  return fabs(a - b) <= rtol * fmax(1.0, fabs(b));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size, devices = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0)
      printf("no CUDA device: skipped\n");
    MPI_Finalize();
    return 77;
  }
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int d = argc > 2 ? atoi(argv[2]) : 16;
  int steps = argc > 3 ? atoi(argv[3]) : 60;
  double lr = argc > 4 ? atof(argv[4]) : 2.0;
  const double lambda = 1e-3;
  if (n < 1 || d < 1 || steps < 1 || !(lr > 0.0)) {
    if (rank == 0)
      fprintf(stderr, "usage: %s [samples_per_rank>0 d>0 steps>0 lr>0]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }

  /* Data: labels from a random linear model, per rank. */
  double *X = malloc((size_t)n * d * sizeof *X), *y = malloc(n * sizeof *y);
  double *w = calloc((size_t)d, sizeof *w), *gw = malloc(d * sizeof *gw);
  double *hw = malloc(d * sizeof *hw);
  unsigned long long s = 12345 + 977ULL * (unsigned long long)rank;
  for (int i = 0; i < n; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++) {
      X[(size_t)i * d + j] = 2.0 * uniform(&s) - 1.0;
      z += (j % 3 - 1.0) * X[(size_t)i * d + j];
    }
    y[i] = uniform(&s) < 1.0 / (1.0 + exp(-z)) ? 1.0 : -1.0;
  }
  double *dX = to_device(X, (size_t)n * d), *dy = to_device(y, (size_t)n);
  double *dw = to_device(w, (size_t)d), *dwb = to_device(w, (size_t)d);
  double b = 0.1;
  int failed = 0;

  /* 1. The GPU agrees with the host evaluation at a non-trivial model. */
  for (int j = 0; j < d; j++)
    w[j] = 0.1 * (j % 5) - 0.2;
  cudaMemcpy(dw, w, d * sizeof *w, cudaMemcpyHostToDevice);
  cudaMemset(dwb, 0, d * sizeof *w);
  double gb_ref, b_b = 0.0;
  double L_ref = host_loss(w, b, X, y, n, d, lambda, gw, &gb_ref, comm);
  double L = loss_b(dw, dwb, b, &b_b, dX, dy, n, d, lambda, comm, 1.0);
  cudaMemcpy(hw, dwb, d * sizeof *hw, cudaMemcpyDeviceToHost);
  int agree = close_to(L, L_ref, 1e-12) && close_to(b_b, gb_ref, 1e-12) &&
              close_to(loss(dw, b, dX, dy, n, d, lambda, comm), L_ref, 1e-12);
  for (int j = 0; j < d; j++)
    agree &= close_to(hw[j], gw[j], 1e-12);
  if (rank == 0)
    printf("%s: GPU loss and gradient vs host: loss %.15f (host %.15f)\n",
           agree ? "ok" : "FAIL", L, L_ref);
  failed |= !agree;

  /* 2. Central difference of the GPU loss along b. */
  double h = 1e-6;
  double fd = (loss(dw, b + h, dX, dy, n, d, lambda, comm) -
               loss(dw, b - h, dX, dy, n, d, lambda, comm)) / (2 * h);
  int fd_ok = fabs(fd - b_b) <= 1e-6 * fmax(1.0, fabs(b_b));
  if (rank == 0)
    printf("%s: dL/db adjoint %.12f, central difference %.12f\n",
           fd_ok ? "ok" : "FAIL", b_b, fd);
  failed |= !fd_ok;

  /* 3. Gradient descent from w = 0, b = 0 (w_b is accumulated: zero it). */
  for (int j = 0; j < d; j++)
    w[j] = 0.0;
  b = 0.0;
  cudaMemcpy(dw, w, d * sizeof *w, cudaMemcpyHostToDevice);
  double first = 0.0;
  for (int k = 0; k < steps; k++) {
    cudaMemset(dwb, 0, d * sizeof *w);
    b_b = 0.0;
    double Lk = loss_b(dw, dwb, b, &b_b, dX, dy, n, d, lambda, comm, 1.0);
    if (k == 0)
      first = Lk;
    cudaMemcpy(hw, dwb, d * sizeof *hw, cudaMemcpyDeviceToHost);
    for (int j = 0; j < d; j++)
      w[j] -= lr * hw[j];
    b -= lr * b_b;
    cudaMemcpy(dw, w, d * sizeof *w, cudaMemcpyHostToDevice);
  }
  double last = loss(dw, b, dX, dy, n, d, lambda, comm);
  if (rank == 0)
    printf("%s: loss %.10f -> %.10f after %d steps on %d ranks\n",
           last < first ? "ok" : "FAIL", first, last, steps, size);
  failed |= !(last < first);

  cudaFree(dX);
  cudaFree(dy);
  cudaFree(dw);
  cudaFree(dwb);
  free(X);
  free(y);
  free(w);
  free(gw);
  free(hw);
  MPI_Finalize();
  return failed;
}
