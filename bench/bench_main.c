/*
 * bench_main.c - times primal, generated adjoint and hand-written adjoint of
 * the kernels in kernels.c, and counts their tape and communication.
 *
 * For each kernel:
 *   1. checks the hand-written adjoint against a central finite difference
 *      along a random direction, and the generated adjoint against the
 *      hand-written one (max relative difference of the gradients);
 *   2. times REPS calls of each variant (median; barrier before and after each
 *      call, MPI_Wtime on rank 0); gradients are zeroed outside the timing;
 *   3. records the tape high-water mark of one generated-adjoint call and the
 *      collective / point-to-point calls and bytes (pmpi_count.c) of one call
 *      of each variant.
 * A plain table goes to stdout on rank 0.  Exit status 1 if a check fails.
 *
 * Usage: bench [n_dot n_stencil T n_loss d reps]
 *        (defaults 10000000 100000 200 1000000 16 7)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "mpiad.h"
#include "pmpi_count.h"

#define MAX_REPS 64

static int rank, nranks;
static int reps = 7;
static int failures = 0;

static unsigned long long rng = 88172645463325252ULL;
static double uniform(void) { /* in [-1, 1) */
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return 2.0 * ((double)(rng >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}
static void fill(double *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    a[i] = uniform();
}
static void zero(double *a, size_t n) { memset(a, 0, n * sizeof *a); }

/* ---- a kernel under test, seen through three function pointers --------- */

typedef struct bench bench;
struct bench {
  const char *name;
  void *ctx;
  double (*primal)(void *ctx);
  double (*generated)(
      void *ctx); /* value + gradient into the ctx's _b arrays */
  double (*hand)(void *ctx);
  void (*zero_grad)(void *ctx);
  /* the inputs with their gradients, for the checks */
  mpiad_input *in;
  double **grad;
  int nin;
  double h;
};

typedef struct {
  double t_primal, t_gen, t_hand;
  size_t tape;
  pmpi_counts c_primal, c_gen, c_hand;
} result;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One call between barriers; rank 0's clock. */
static double time_one(bench *B, double (*f)(void *), int zero_first) {
  if (zero_first)
    B->zero_grad(B->ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  volatile double v = f(B->ctx);
  (void)v;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The three variants are timed interleaved (primal, generated, hand-written,
 * primal, ...) so that a slow spell of the machine hits all of them alike. */
static void time_all(bench *B, result *R) {
  double tp[MAX_REPS], tg[MAX_REPS], th[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    tp[r] = time_one(B, B->primal, 0);
    tg[r] = time_one(B, B->generated, 1);
    th[r] = time_one(B, B->hand, 1);
  }
  R->t_primal = median(tp, reps);
  R->t_gen = median(tg, reps);
  R->t_hand = median(th, reps);
}

static pmpi_counts count_one(bench *B, double (*f)(void *)) {
  B->zero_grad(B->ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  pmpi_count_reset();
  f(B->ctx);
  pmpi_counts c = pmpi_count_read();
  pmpi_count_reset();
  return c;
}

/* Copies of the gradients (all inputs concatenated). */
static double *save_grad(bench *B, size_t *len) {
  size_t n = 0;
  for (int k = 0; k < B->nin; k++)
    n += B->in[k].n;
  double *g = malloc(n * sizeof *g), *p = g;
  for (int k = 0; k < B->nin; k++) {
    memcpy(p, B->grad[k], B->in[k].n * sizeof *p);
    p += B->in[k].n;
  }
  *len = n;
  return g;
}

static void check(bench *B) {
  char label[128];
  /* hand-written adjoint vs central differences */
  double fd = mpiad_fd_directional(B->primal, B->ctx, B->in, B->nin, B->h);
  B->zero_grad(B->ctx);
  double Jh = B->hand(B->ctx);
  double ad = mpiad_adjoint_directional(B->in, B->grad, B->nin, MPI_COMM_WORLD);
  snprintf(label, sizeof label, "%-9s hand-written vs central FD ", B->name);
  failures += mpiad_check_close(label, ad, fd, 1e-6, 1e-12, MPI_COMM_WORLD);
  size_t len;
  double *gh = save_grad(B, &len);

  /* generated adjoint vs hand-written: value and every gradient entry */
  B->zero_grad(B->ctx);
  double Jg = B->generated(B->ctx);
  snprintf(label, sizeof label, "%-9s generated value vs primal   ", B->name);
  failures += mpiad_check_close(label, Jg, B->primal(B->ctx), 1e-12, 1e-300,
                                MPI_COMM_WORLD);
  (void)Jh;
  double *gg = save_grad(B, &len);
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < len; i++) {
    diff = fmax(diff, fabs(gg[i] - gh[i]));
    scale = fmax(scale, fabs(gh[i]));
  }
  double v[2] = {diff, scale};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  snprintf(label, sizeof label,
           "%-9s generated vs hand-written (max|diff|/max|g|)", B->name);
  failures +=
      mpiad_check_close(label, v[0] / v[1], 0.0, 1e-10, 1.0, MPI_COMM_WORLD);
  free(gh);
  free(gg);
}

static result run(bench *B) {
  result R;
  check(B);
  /* warm-up (page faults, tape chunks) */
  B->primal(B->ctx);
  B->zero_grad(B->ctx);
  B->generated(B->ctx);
  B->zero_grad(B->ctx);
  B->hand(B->ctx);

  time_all(B, &R);

  B->zero_grad(B->ctx);
  mpiad_tape_reset_peak();
  size_t before = mpiad_tape_bytes();
  B->generated(B->ctx);
  unsigned long long peak = mpiad_tape_peak_bytes() - before, maxpeak = 0;
  MPI_Allreduce(&peak, &maxpeak, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                MPI_COMM_WORLD);
  R.tape = (size_t)maxpeak;

  R.c_primal = count_one(B, B->primal);
  R.c_gen = count_one(B, B->generated);
  R.c_hand = count_one(B, B->hand);
  return R;
}

/* ---- (a) dot ------------------------------------------------------------ */

typedef struct {
  double *x, *y, *x_b, *y_b;
  int n;
} dot_ctx;
static double dot_p(void *p) {
  dot_ctx *c = p;
  return dot(c->x, c->y, c->n, MPI_COMM_WORLD);
}
static double dot_g(void *p) {
  dot_ctx *c = p;
  return dot_b(c->x, c->x_b, c->y, c->y_b, c->n, MPI_COMM_WORLD, 1.0);
}
static double dot_h(void *p) {
  dot_ctx *c = p;
  return dot_hand_b(c->x, c->x_b, c->y, c->y_b, c->n, MPI_COMM_WORLD, 1.0);
}
static void dot_z(void *p) {
  dot_ctx *c = p;
  zero(c->x_b, (size_t)c->n);
  zero(c->y_b, (size_t)c->n);
}

/* ---- (b) diffusion ------------------------------------------------------ */

#define NU 0.25
typedef struct {
  double *u0, *u0_b;
  int n, T;
} dif_ctx;
static double dif_p(void *p) {
  dif_ctx *c = p;
  return diffusion(c->u0, c->n, c->T, NU, MPI_COMM_WORLD);
}
static double dif_g(void *p) {
  dif_ctx *c = p;
  return diffusion_b(c->u0, c->u0_b, c->n, c->T, NU, MPI_COMM_WORLD, 1.0);
}
static double dif_h(void *p) {
  dif_ctx *c = p;
  return diffusion_hand_b(c->u0, c->u0_b, c->n, c->T, NU, MPI_COMM_WORLD, 1.0);
}
static void dif_z(void *p) {
  dif_ctx *c = p;
  zero(c->u0_b, (size_t)c->n);
}

/* ---- (c) logistic loss -------------------------------------------------- */

#define LAMBDA 1e-3
typedef struct {
  double *w, *w_b, b, b_b, *X, *y;
  int n, d;
} loss_ctx;
static double loss_p(void *p) {
  loss_ctx *c = p;
  return loss(c->w, c->b, c->X, c->y, c->n, c->d, LAMBDA, MPI_COMM_WORLD);
}
static double loss_g(void *p) {
  loss_ctx *c = p;
  return loss_b(c->w, c->w_b, c->b, &c->b_b, c->X, c->y, c->n, c->d, LAMBDA,
                MPI_COMM_WORLD, 1.0);
}
static double loss_h(void *p) {
  loss_ctx *c = p;
  return loss_hand_b(c->w, c->w_b, c->b, &c->b_b, c->X, c->y, c->n, c->d,
                     LAMBDA, MPI_COMM_WORLD, 1.0);
}
static void loss_z(void *p) {
  loss_ctx *c = p;
  zero(c->w_b, (size_t)c->d);
  c->b_b = 0.0;
}

/* ---- output ------------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, double b) {
  if (b >= 1e9)
    snprintf(buf, len, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    snprintf(buf, len, "%.2f MB", b / 1e6);
  else if (b >= 1e3)
    snprintf(buf, len, "%.2f kB", b / 1e3);
  else
    snprintf(buf, len, "%.0f B", b);
}

static void fmt_comm(char *buf, size_t len, pmpi_counts c) {
  char b[32];
  fmt_bytes(b, sizeof b, (double)(c.coll_bytes + c.p2p_bytes));
  snprintf(buf, len, "%lld / %s", c.coll_calls + c.p2p_calls, b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int n_dot = argc > 1 ? atoi(argv[1]) : 10000000;
  int n_st = argc > 2 ? atoi(argv[2]) : 100000;
  int T = argc > 3 ? atoi(argv[3]) : 200;
  int n_loss = argc > 4 ? atoi(argv[4]) : 1000000;
  int d = argc > 5 ? atoi(argv[5]) : 16;
  reps = argc > 6 ? atoi(argv[6]) : 7;
  if (reps < 1)
    reps = 1;
  if (reps > MAX_REPS)
    reps = MAX_REPS;
  rng += 7919ULL * (unsigned long long)rank; /* varying data per rank */

  /* (a) */
  dot_ctx dc = {malloc(n_dot * sizeof(double)), malloc(n_dot * sizeof(double)),
                calloc(n_dot, sizeof(double)), calloc(n_dot, sizeof(double)),
                n_dot};
  fill(dc.x, n_dot);
  fill(dc.y, n_dot);
  double *dxa = malloc(n_dot * sizeof(double)),
         *dya = malloc(n_dot * sizeof(double));
  fill(dxa, n_dot);
  fill(dya, n_dot);
  mpiad_input dot_in[2] = {{dc.x, dxa, n_dot, 0}, {dc.y, dya, n_dot, 0}};
  double *dot_gr[2] = {dc.x_b, dc.y_b};
  char name_a[64], name_b[64], name_c[64];
  snprintf(name_a, sizeof name_a, "dot");
  bench Ba = {name_a, &dc, dot_p, dot_g, dot_h, dot_z, dot_in, dot_gr, 2, 1e-2};

  /* (b) */
  dif_ctx fc = {malloc(n_st * sizeof(double)), calloc(n_st, sizeof(double)),
                n_st, T};
  fill(fc.u0, n_st);
  double *du = malloc(n_st * sizeof(double));
  fill(du, n_st);
  mpiad_input dif_in[1] = {{fc.u0, du, n_st, 0}};
  double *dif_gr[1] = {fc.u0_b};
  snprintf(name_b, sizeof name_b, "stencil");
  bench Bb = {name_b, &fc, dif_p, dif_g, dif_h, dif_z, dif_in, dif_gr, 1, 1e-2};

  /* (c) */
  loss_ctx lc = {malloc(d * sizeof(double)),
                 calloc(d, sizeof(double)),
                 0.1,
                 0.0,
                 malloc((size_t)n_loss * d * sizeof(double)),
                 malloc(n_loss * sizeof(double)),
                 n_loss,
                 d};
  unsigned long long keep = rng;
  rng = 12345; /* replicated model: the same w on every rank */
  fill(lc.w, d);
  double *dw = malloc(d * sizeof(double)), db = 0.5;
  fill(dw, d);
  rng = keep;
  fill(lc.X, (size_t)n_loss * d);
  for (int i = 0; i < n_loss; i++)
    lc.y[i] = uniform() < 0.0 ? -1.0 : 1.0;
  mpiad_input loss_in[2] = {{lc.w, dw, d, 1}, {&lc.b, &db, 1, 1}};
  double *loss_gr[2] = {lc.w_b, &lc.b_b};
  snprintf(name_c, sizeof name_c, "logistic");
  bench Bc = {name_c, &lc,     loss_p,  loss_g, loss_h,
              loss_z, loss_in, loss_gr, 2,      1e-5};

  if (rank == 0) {
    printf("mpiad benchmark: %d ranks, median of %d runs\n", nranks, reps);
    printf("  dot:      J = Allreduce(sum x_i y_i), %d doubles per rank, wrt "
           "x, y (varying)\n",
           n_dot);
    printf("  stencil:  1-D diffusion, %d points per rank, %d steps, "
           "copy-back; J = Allreduce(sum u^2), wrt u0 (varying)\n",
           n_st, T);
    printf("  logistic: samples/fitting loss, %d samples per rank, d = %d, wrt "
           "w, b (replicated)\n\n",
           n_loss, d);
    printf("checks:\n");
  }
  bench *all[3] = {&Ba, &Bb, &Bc};
  result R[3];
  for (int k = 0; k < 3; k++)
    R[k] = run(all[k]);

  if (rank == 0) {
    printf("\ntimes (ms, median; rank 0 between barriers)\n");
    printf("%-9s %10s %10s %10s %11s %10s %12s\n", "kernel", "primal",
           "adjoint", "hand", "adj/primal", "adj/hand", "tape peak");
    for (int k = 0; k < 3; k++) {
      char tb[32];
      fmt_bytes(tb, sizeof tb, (double)R[k].tape);
      printf("%-9s %10.2f %10.2f %10.2f %11.2f %10.2f %12s\n", all[k]->name,
             1e3 * R[k].t_primal, 1e3 * R[k].t_gen, 1e3 * R[k].t_hand,
             R[k].t_gen / R[k].t_primal, R[k].t_gen / R[k].t_hand, tb);
    }
    printf("\ncommunication per call on rank 0 (calls / bytes; collectives + "
           "point-to-point;\n"
           "the adjoint's reverse sweep is what it adds to its forward sweep, "
           "a re-run of the primal)\n");
    printf("%-9s %16s %16s %16s %16s\n", "kernel", "primal", "adjoint",
           "reverse sweep", "hand");
    for (int k = 0; k < 3; k++) {
      char a[48], b[48], c[48], r[48];
      pmpi_counts rev = {R[k].c_gen.coll_calls - R[k].c_primal.coll_calls,
                         R[k].c_gen.coll_bytes - R[k].c_primal.coll_bytes,
                         R[k].c_gen.p2p_calls - R[k].c_primal.p2p_calls,
                         R[k].c_gen.p2p_bytes - R[k].c_primal.p2p_bytes};
      fmt_comm(a, sizeof a, R[k].c_primal);
      fmt_comm(b, sizeof b, R[k].c_gen);
      fmt_comm(r, sizeof r, rev);
      fmt_comm(c, sizeof c, R[k].c_hand);
      printf("%-9s %16s %16s %16s %16s\n", all[k]->name, a, b, r, c);
    }
    printf("\n%s\n", failures ? "CHECKS FAILED" : "all checks passed");
  }

  free(dc.x), free(dc.y), free(dc.x_b), free(dc.y_b), free(dxa), free(dya);
  free(fc.u0), free(fc.u0_b), free(du);
  free(lc.w), free(lc.w_b), free(lc.X), free(lc.y), free(dw);
  MPI_Finalize();
  return failures ? 1 : 0;
}
