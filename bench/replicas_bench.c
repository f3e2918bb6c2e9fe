/* replicas_bench.c - F_bv for R replicas against R calls of F_b (issue 16).
 *
 * Two NNPDF-style losses, the data X distributed over the ranks and shared by
 * every replica, the weights w and the pseudo-data y per replica:
 *   fit: one dense layer with tanh (d weights + bias);
 *   mlp: two dense layers, h hidden units with tanh, a linear output.
 * For each R it times loss_bv(R, ...) and a loop of R calls of loss_b on the
 * same inputs (median of `reps` runs), counts their collective calls (PMPI),
 * reads the peak tape, checks that both give the same values and gradients
 * (to 1e-12), and prints one line:
 *   kernel R  t_bv/R  t_b  ratio  collectives(bv, loop)  tape/replica(bv, b)
 * Usage: replicas_bench n d h reps R...   (n samples per rank)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiad.h"
#include "pmpi_count.h"

#pragma mpiad differentiate wrt(w) replicated(w[d + 1], n, d) varying(X, y) replicas(w[d + 1], y[n])
double fit(const double *w, const double *X, const double *y, int n, int d,
           MPI_Comm comm) {
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double z = w[d];
    for (int j = 0; j < d; j++)
      z += X[i * d + j] * w[j];
    double e = tanh(z) - y[i];
    l += e * e;
  }
  MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_DOUBLE, MPI_SUM, comm);
  return 0.5 * l;
}

#pragma mpiad differentiate wrt(w) replicated(w[h * d + h + 1], n, d, h) varying(X, y) replicas(w[h * d + h + 1], y[n])
double mlp(const double *w, const double *X, const double *y, int n, int d,
           int h, MPI_Comm comm) {
  double l = 0.0;
  for (int i = 0; i < n; i++) {
    double out = w[h * d + h];
    for (int k = 0; k < h; k++) {
      double a = 0.0;
      for (int j = 0; j < d; j++)
        a += w[k * d + j] * X[i * d + j];
      out += w[h * d + k] * tanh(a);
    }
    double e = out - y[i];
    l += e * e;
  }
  MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_DOUBLE, MPI_SUM, comm);
  return 0.5 * l;
}

static double urand(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* median over ranks' max of `reps` timings */
static double median(double *t, int reps) {
  MPI_Allreduce(MPI_IN_PLACE, t, reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(t, reps, sizeof *t, cmp);
  return t[reps / 2];
}

static int worst_fail = 0;

static void run(const char *kernel, int R, int n, int d, int h, int reps,
                const double *X, int rank) {
  int lw = strcmp(kernel, "fit") == 0 ? d + 1 : h * d + h + 1;
  double *w = malloc((size_t)R * lw * sizeof *w), *y = malloc((size_t)R * n * sizeof *y);
  double *wb = calloc((size_t)R * lw, sizeof *wb), *wb1 = calloc((size_t)R * lw, sizeof *wb1);
  double *bar = malloc(R * sizeof *bar), *val = malloc(R * sizeof *val), *val1 = malloc(R * sizeof *val1);
  unsigned long long s = 99, sy = 1000 + (unsigned long long)rank;
  for (int k = 0; k < R * lw; k++)
    w[k] = 0.5 * urand(&s);
  for (int k = 0; k < R * n; k++)
    y[k] = urand(&sy);
  for (int r = 0; r < R; r++)
    bar[r] = 1.0;
  double *tb = malloc(reps * sizeof *tb), *tl = malloc(reps * sizeof *tl);
  size_t tape_bv = 0, tape_b = 0;
  long long cbv = 0, cl = 0;
  for (int it = 0; it < reps; it++) {
    memset(wb, 0, (size_t)R * lw * sizeof *wb);
    memset(wb1, 0, (size_t)R * lw * sizeof *wb1);
    /* The tape keeps its chunks from call to call, as in a training loop
     * (releasing them made every F_bv call fault in R times F_b's tape
     * afresh, while the loop's F_b calls reused one F_b's worth). */
    mpiad_tape_reset_peak();
    MPI_Barrier(MPI_COMM_WORLD);
    pmpi_count_reset();
    double t0 = MPI_Wtime();
    if (lw == d + 1)
      fit_bv(R, w, wb, X, y, n, d, MPI_COMM_WORLD, bar, val);
    else
      mlp_bv(R, w, wb, X, y, n, d, h, MPI_COMM_WORLD, bar, val);
    double t1 = MPI_Wtime();
    cbv = pmpi_count_read().coll_calls;
    tape_bv = mpiad_tape_peak_bytes();
    mpiad_tape_reset_peak();
    MPI_Barrier(MPI_COMM_WORLD);
    pmpi_count_reset();
    double t2 = MPI_Wtime();
    for (int r = 0; r < R; r++)
      val1[r] = lw == d + 1
                    ? fit_b(w + r * lw, wb1 + r * lw, X, y + r * n, n, d, MPI_COMM_WORLD, 1.0)
                    : mlp_b(w + r * lw, wb1 + r * lw, X, y + r * n, n, d, h, MPI_COMM_WORLD, 1.0);
    double t3 = MPI_Wtime();
    cl = pmpi_count_read().coll_calls;
    tape_b = mpiad_tape_peak_bytes();
    tb[it] = t1 - t0;
    tl[it] = t3 - t2;
  }
  /* same values and gradients: each replica's gradient relative to its
     largest element (F_b sums its loop's per-sample gradient for a seed of
     1 and scales the sum, DeferredSeed.cpp, F_bv scales each sample's
     term: the small elements of a gradient agree to rounding of its large
     ones, not element by element) */
  double worst = 0.0;
  for (int r = 0; r < R; r++) {
    worst = fmax(worst, fabs(val[r] - val1[r]) / fmax(fabs(val1[r]), 1e-300));
    double big = 1e-300;
    for (int k = r * lw; k < (r + 1) * lw; k++)
      big = fmax(big, fabs(wb1[k]));
    for (int k = r * lw; k < (r + 1) * lw; k++)
      worst = fmax(worst, fabs(wb[k] - wb1[k]) / big);
  }
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double mb = median(tb, reps), ml = median(tl, reps);
  if (rank == 0)
    printf("%-4s %5d %12.3e %12.3e %7.3f %8lld %8lld %12.0f %12.0f %s\n", kernel,
           R, mb / R, ml / R, mb / ml, cbv, cl, (double)tape_bv / R,
           (double)tape_b, worst <= 1e-12 ? "ok" : "MISMATCH");
  if (worst > 1e-12)
    worst_fail = 1;
  free(w); free(y); free(wb); free(wb1); free(bar); free(val); free(val1);
  free(tb); free(tl);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 6) {
    if (rank == 0)
      fprintf(stderr, "usage: %s n d h reps R...\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int n = atoi(argv[1]), d = atoi(argv[2]), h = atoi(argv[3]), reps = atoi(argv[4]);
  double *X = malloc((size_t)n * d * sizeof *X);
  unsigned long long s = 7 + (unsigned long long)rank;
  for (int k = 0; k < n * d; k++)
    X[k] = urand(&s);
  if (rank == 0)
    printf("%-4s %5s %12s %12s %7s %8s %8s %12s %12s\n", "loss", "R",
           "bv s/replica", "loop s/repl", "bv/loop", "coll.bv", "coll.loop",
           "tape B/repl", "tape B (b)");
  for (int k = 5; k < argc; k++)
    run("fit", atoi(argv[k]), n, d, h, reps, X, rank);
  for (int k = 5; k < argc; k++)
    run("mlp", atoi(argv[k]), n, d, h, reps, X, rank);
  free(X);
  MPI_Finalize();
  return worst_fail;
}
