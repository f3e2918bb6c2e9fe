/*
 * logistic.c - data-parallel logistic regression, trained with the gradient
 * that mpiad-cc generates from the loss function below.
 *
 * Every rank holds its own slice of the training set (generated here from a
 * simple LCG seeded by the rank).  The model (weights w[0..d) and bias b) is
 * replicated: the same on every rank.  The loss is the mean over ALL samples of
 * all ranks of log(1 + exp(-y z)), z = w.x + b, plus a small L2 term.
 *
 * The function `loss` is written as one would write it for MPI without AD in
 * mind: a local sum, an MPI_Allreduce of the sum and of the sample count, a
 * division.  The pragma asks mpiad-cc for its reverse-mode derivative with
 * respect to w and b.  `replicated(...)` lists every input that is the same
 * on all ranks: the model w, b, and also the dimension d and the weight
 * lambda of the L2 term.  That matters: an input not listed is taken to vary
 * per rank, and a loss computed from a varying value (here 0.5*lambda*|w|^2,
 * summed over a loop of d steps) would itself be varying; the objective of a
 * varying output is its SUM over ranks (DESIGN.md section 2), so the gradient
 * would come out P times too large.  n is not listed: it may differ per rank.
 * mpiad-cc then generates
 *
 *     double loss_b(const double *w, double *w_b, double b, double *b_b,
 *                   const double *X, const double *y, int n, int d,
 *                   double lambda, MPI_Comm comm, double loss_bar);
 *
 * which returns the loss and ADDS loss_bar * dloss/dw to w_b (and the same for
 * b to *b_b).  Because w and b are replicated and the loss is the global one,
 * w_b is the gradient of the global loss, identical on every rank: there is no
 * 1/P factor to apply and no Allreduce of the gradient to write by hand.
 *
 * Usage: mpirun -np P ./logistic [samples_per_rank d steps lr]
 *        (defaults: 20000 16 60 2.0)
 *
 * The program exits with status 0 only if the loss went down during training
 * and the adjoint gradient agrees with a central finite difference along a
 * random direction (relative error <= 1e-6).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

#pragma mpiad differentiate wrt(w, b) replicated(w, b, d, lambda) varying(X, y, n)
double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, double lambda, MPI_Comm comm) {
  double local = 0.0;
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
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  return total / total_count + 0.5 * lambda * reg;
}

/* ------------------------------------------------------------------------- */
/* Everything below is ordinary MPI code: data, training loop, checks.       */
/* ------------------------------------------------------------------------- */

/* 64-bit LCG (Knuth's MMIX constants); uniform double in [0, 1). */
static double lcg_uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned long long lcg_seed(unsigned long long seed) {
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 12345u;
  for (int k = 0; k < 4; k++) /* decorrelate nearby seeds */
    lcg_uniform(&s);
  return s;
}

/* The data set of this rank: X[n*d] uniform in [-1,1), labels +-1 drawn from
 * a logistic model with hidden weights (the same on all ranks: seed 42). */
static void make_data(double *X, double *y, int n, int d, int rank) {
  unsigned long long ht = lcg_seed(42);
  double *w_true = malloc((size_t)d * sizeof *w_true);
  for (int j = 0; j < d; j++)
    w_true[j] = 3.0 * lcg_uniform(&ht) - 1.5;
  double b_true = 0.3;

  unsigned long long s = lcg_seed(1000 + (unsigned long long)rank);
  for (int i = 0; i < n; i++) {
    double z = b_true;
    for (int j = 0; j < d; j++) {
      X[(size_t)i * d + j] = 2.0 * lcg_uniform(&s) - 1.0;
      z += w_true[j] * X[(size_t)i * d + j];
    }
    double p = 1.0 / (1.0 + exp(-z));
    y[i] = lcg_uniform(&s) < p ? 1.0 : -1.0;
  }
  free(w_true);
}

/* Context for the finite-difference check: J() evaluates the primal loss at
 * the current (possibly perturbed) w and b. */
typedef struct {
  double *w;
  double b;
  const double *X, *y;
  int n, d;
  double lambda;
  MPI_Comm comm;
} fit_ctx;

static double objective(void *p) {
  fit_ctx *c = p;
  return loss(c->w, c->b, c->X, c->y, c->n, c->d, c->lambda, c->comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

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
  if (rank == 0)
    printf("logistic regression: %d ranks x %d samples, d = %d, %d steps, "
           "lr = %g\n",
           size, n, d, steps, lr);

  double *X = malloc((size_t)n * d * sizeof *X);
  double *y = malloc((size_t)n * sizeof *y);
  /* The model starts at w = 0, b = 0 on every rank: it is replicated. */
  double *w = calloc((size_t)d, sizeof *w);
  double *w_b = malloc((size_t)d * sizeof *w_b);
  double b = 0.0;
  make_data(X, y, n, d, rank);

  /* Gradient descent.  loss_b returns the loss and accumulates its gradient
   * (seeded with 1) into w_b and b_b, which we zero first. */
  int every = steps >= 10 ? steps / 10 : 1;
  double first = 0.0, last = 0.0;
  for (int k = 0; k < steps; k++) {
    for (int j = 0; j < d; j++)
      w_b[j] = 0.0;
    double b_b = 0.0;
    double L = loss_b(w, w_b, b, &b_b, X, y, n, d, lambda, comm, 1.0);
    if (k == 0)
      first = L;
    if (rank == 0 && k % every == 0)
      printf("step %d loss %.10f\n", k, L);
    for (int j = 0; j < d; j++)
      w[j] -= lr * w_b[j];
    b -= lr * b_b;
  }
  last = loss(w, b, X, y, n, d, lambda, comm);
  if (rank == 0)
    printf("step %d loss %.10f\n", steps, last);

  int failed = 0;
  if (!(last < first)) {
    if (rank == 0)
      printf("FAIL: the loss did not decrease (%.10f -> %.10f)\n", first, last);
    failed = 1;
  }

  /* Gradient check: central difference of the primal along a random
   * direction against <direction, adjoint gradient>, at a random model (near
   * the optimum the directional derivative is tiny and the difference
   * quotient loses its digits).  Direction and point are drawn from the same
   * seed on every rank, so they are replicated like w and b. */
  double *dw = malloc((size_t)d * sizeof *dw);
  unsigned long long s = lcg_seed(7);
  for (int j = 0; j < d; j++) {
    w[j] = 2.0 * lcg_uniform(&s) - 1.0;
    dw[j] = 2.0 * lcg_uniform(&s) - 1.0;
  }
  b = 2.0 * lcg_uniform(&s) - 1.0;
  double db = 2.0 * lcg_uniform(&s) - 1.0;

  fit_ctx ctx = {w, b, X, y, n, d, lambda, comm};
  mpiad_input in[2] = {{w, dw, (size_t)d, 1}, {&ctx.b, &db, 1, 1}};
  double fd = mpiad_fd_directional(objective, &ctx, in, 2, 1e-5);

  for (int j = 0; j < d; j++)
    w_b[j] = 0.0;
  double b_b = 0.0;
  loss_b(w, w_b, b, &b_b, X, y, n, d, lambda, comm, 1.0);
  double *grads[2] = {w_b, &b_b};
  double ad = mpiad_adjoint_directional(in, grads, 2, comm);
  if (mpiad_check_close("gradient check (adjoint vs central difference)", ad,
                        fd, 1e-6, 1e-12, comm))
    failed = 1;

  if (rank == 0)
    printf("%s\n", failed ? "FAILED" : "OK");
  free(dw);
  free(w_b);
  free(w);
  free(y);
  free(X);
  MPI_Finalize();
  return failed;
}
