/*
 * stencil_bench.c - the multi-dimensional stencil benchmark: for each kernel
 * of stencils.h (halo2d, the radius-2 star stencil stencil_norm, heat3d) it
 * times the primal, the adjoint mpiad-cc generates and the hand-written
 * adjoint, and counts their tape and communication.
 *
 * For each kernel it prints one line per rank count it runs at:
 *   - the median time of the primal, the generated and the hand-written
 *     adjoint (value and gradient), each call timed on the slowest rank
 *     (barrier, MPI_Wtime, MPI_MAX), the three interleaved round by round;
 *   - adjoint/primal for both adjoints and generated/hand-written;
 *   - the generated adjoint's tape peak during one call and the state the
 *     hand-written one keeps (stencil_hand_state_bytes), the largest over
 *     ranks;
 *   - the messages and bytes sent by one primal call and by the reverse
 *     sweep of each adjoint (one adjoint call minus one primal call), and
 *     the same for the collectives, summed over ranks.  Messages are
 *     non-blocking sends to a real neighbour (counted here) plus blocking
 *     point-to-point calls (bench/pmpi_count.c: MPI_Sendrecv is one call
 *     whose bytes are those sent plus those received, MPI_PROC_NULL
 *     included), calls inside libmpiad included.
 * Before timing, it checks that the generated gradient equals the
 * hand-written one (relative 1e-9 in the worst element, both against the
 * largest element) and that both values equal the primal's; the hand-written
 * adjoints are checked against central differences by
 * test/lit/exec/handwritten_stencils.c.  Exits non-zero if a check fails or a
 * reverse sweep sends more messages or bytes than the primal.
 *
 * Usage (bench/stencil_run.sh builds and runs it):
 *   stencil_bench [-reps K] [-halo2d NX NY nsteps] [-star n iterations]
 *                 [-heat3d NX NY NZ T] [-only halo2d|star|heat3d]
 * defaults: 7 reps, halo2d 512 512 50, star 1536 10, heat3d 128 128 128 20.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiad.h"
#include "pmpi_count.h"
#include "stencils.h"

/* ---- PMPI counting of the non-blocking calls (as in halo2d_bench.c) ----- */

static long long nb_msgs, nb_bytes;

__attribute__((weak)) int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
                                    int tag, MPI_Comm comm, MPI_Request *request) {
  if (dest != MPI_PROC_NULL) {
    int sz = 0;
    PMPI_Type_size(datatype, &sz);
    nb_msgs++;
    nb_bytes += (long long)count * sz;
  }
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

typedef struct {
  long long msgs, bytes, coll;
} counts;

static void counts_reset(void) {
  nb_msgs = nb_bytes = 0;
  pmpi_count_reset();
}

static counts counts_read(MPI_Comm comm) {
  pmpi_counts p = pmpi_count_read();
  long long loc[3] = {nb_msgs + p.p2p_calls, nb_bytes + p.p2p_bytes, p.coll_calls}, all[3];
  PMPI_Allreduce(loc, all, 3, MPI_LONG_LONG, MPI_SUM, comm);
  counts c = {all[0], all[1], all[2]};
  return c;
}

/* ---- the kernels --------------------------------------------------------- */

enum { PRIMAL, GENERATED, HAND, NKIND };

typedef struct kernel kernel;
struct kernel {
  const char *name;
  MPI_Comm comm;
  double value;
  size_t ngrad;
  double *grad; /* the gradient of the last adjoint call */
  void (*run)(kernel *k, int kind);
  /* halo2d */
  int nx, ny, nsteps, nb[4];
  double r, *kappa, *u0, *uobs;
  /* star */
  int n, it, is, ie, js, je, px, py, pnx, pny;
  size_t nin, nout;
  double *in0, *in, *out;
  /* heat3d */
  int hnx, hny, hnz, T, down, up;
  double nu, *h0;
};

static unsigned long long lcg_state(unsigned long long s) {
  return s * 0x9E3779B97F4A7C15ULL + 12345u;
}

static double lcg(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static void fill(double *v, size_t n, unsigned long long seed, double lo, double hi) {
  unsigned long long s = lcg_state(seed);
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * lcg(&s);
}

static int block(int n, int p, int c, int *off) {
  *off = c * (n / p) + (c < n % p ? c : n % p);
  return n / p + (c < n % p ? 1 : 0);
}

static void run_halo2d(kernel *k, int kind) {
  if (kind == PRIMAL) {
    k->value = halo2d(k->kappa, k->u0, k->uobs, k->nx, k->ny, k->nsteps, k->r, k->nb[0],
                      k->nb[1], k->nb[2], k->nb[3], k->comm);
    return;
  }
  double (*f)(const double *, double *, const double *, const double *, int, int, int, double,
              int, int, int, int, MPI_Comm, double) =
      kind == GENERATED ? halo2d_b : halo2d_hand_b;
  k->value = f(k->kappa, k->grad, k->u0, k->uobs, k->nx, k->ny, k->nsteps, k->r, k->nb[0],
               k->nb[1], k->nb[2], k->nb[3], k->comm, 1.0);
}

static void run_star(kernel *k, int kind) {
  /* every call starts from the same field (the primal overwrites it); the
   * copies are part of each timed call, primal included */
  memcpy(k->in, k->in0, k->nin * sizeof(double));
  memset(k->out, 0, k->nout * sizeof(double));
  if (kind == PRIMAL) {
    k->value = stencil_norm(k->in, k->out, k->n, k->it, k->is, k->ie, k->js, k->je, k->px,
                            k->py, k->pnx, k->pny, k->comm);
    return;
  }
  double (*f)(double *, double *, double *, int, int, int, int, int, int, int, int, int, int,
              MPI_Comm, double) = kind == GENERATED ? stencil_norm_b : stencil_norm_hand_b;
  k->value = f(k->in, k->grad, k->out, k->n, k->it, k->is, k->ie, k->js, k->je, k->px, k->py,
               k->pnx, k->pny, k->comm, 1.0);
}

static void run_heat3d(kernel *k, int kind) {
  if (kind == PRIMAL) {
    k->value = heat3d(k->h0, k->hnx, k->hny, k->hnz, k->T, k->nu, k->down, k->up, k->comm);
    return;
  }
  double (*f)(const double *, double *, int, int, int, int, double, int, int, MPI_Comm,
              double) = kind == GENERATED ? heat3d_b : heat3d_hand_b;
  k->value = f(k->h0, k->grad, k->hnx, k->hny, k->hnz, k->T, k->nu, k->down, k->up, k->comm,
               1.0);
}

/* ---- measuring ----------------------------------------------------------- */

static double time_call(kernel *k, int kind) {
  if (kind != PRIMAL)
    memset(k->grad, 0, k->ngrad * sizeof(double));
  MPI_Barrier(k->comm);
  double t0 = MPI_Wtime();
  k->run(k, kind);
  double t = MPI_Wtime() - t0, tmax = 0.0;
  PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, k->comm);
  return tmax;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int check_close(const char *what, double got, double want, double rtol, int rank) {
  double err = fabs(got - want) / fmax(fabs(want), 1e-300);
  int bad = !(err <= rtol);
  if (bad && rank == 0)
    printf("CHECK FAILED: %s: %.17g vs %.17g (relative %.2e)\n", what, got, want, err);
  return bad;
}

static int measure(kernel *k, int reps, int rank, int size) {
  int failed = 0;
  /* correctness: values, and the generated gradient against the hand one */
  double *gh = malloc(k->ngrad * sizeof(double));
  memset(k->grad, 0, k->ngrad * sizeof(double));
  k->run(k, PRIMAL);
  double J = k->value;
  k->run(k, HAND);
  double Jh = k->value;
  memcpy(gh, k->grad, k->ngrad * sizeof(double));
  memset(k->grad, 0, k->ngrad * sizeof(double));
  k->run(k, GENERATED);
  double Jg = k->value;
  double worst[2] = {0.0, 0.0}, all[2];
  for (size_t i = 0; i < k->ngrad; i++) {
    worst[0] = fmax(worst[0], fabs(k->grad[i] - gh[i]));
    worst[1] = fmax(worst[1], fabs(gh[i]));
  }
  PMPI_Allreduce(worst, all, 2, MPI_DOUBLE, MPI_MAX, k->comm);
  failed |= check_close("hand-written value", Jh, J, 1e-12, rank);
  failed |= check_close("generated value", Jg, J, 1e-12, rank);
  failed |= check_close("generated vs hand-written gradient", all[1] + all[0], all[1], 1e-9,
                        rank);
  free(gh);

  double *t[NKIND], med[NKIND];
  for (int kind = 0; kind < NKIND; kind++)
    t[kind] = malloc((size_t)reps * sizeof(double));
  for (int rep = 0; rep < reps; rep++)
    for (int kind = 0; kind < NKIND; kind++)
      t[kind][rep] = time_call(k, kind);
  for (int kind = 0; kind < NKIND; kind++) {
    qsort(t[kind], (size_t)reps, sizeof(double), cmp_double);
    med[kind] = reps % 2 ? t[kind][reps / 2] : 0.5 * (t[kind][reps / 2 - 1] + t[kind][reps / 2]);
    free(t[kind]);
  }

  counts c[NKIND];
  unsigned long long mem[2], mem_max[2];
  for (int kind = 0; kind < NKIND; kind++) {
    memset(k->grad, 0, k->ngrad * sizeof(double));
    MPI_Barrier(k->comm);
    mpiad_tape_reset_peak();
    size_t before = mpiad_tape_bytes();
    counts_reset();
    k->run(k, kind);
    c[kind] = counts_read(k->comm);
    if (kind == GENERATED)
      mem[0] = mpiad_tape_peak_bytes() - before;
    if (kind == HAND)
      mem[1] = stencil_hand_state_bytes;
  }
  PMPI_Allreduce(mem, mem_max, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, k->comm);
  counts p = c[PRIMAL];
  counts rg = {c[GENERATED].msgs - p.msgs, c[GENERATED].bytes - p.bytes,
               c[GENERATED].coll - p.coll};
  counts rh = {c[HAND].msgs - p.msgs, c[HAND].bytes - p.bytes, c[HAND].coll - p.coll};
  int comm_ok = rg.msgs <= p.msgs && rg.bytes <= p.bytes && rh.msgs <= p.msgs &&
                rh.bytes <= p.bytes;
  failed |= !comm_ok;
  if (rank == 0) {
    printf("%-7s %3d %9.4f %9.4f %9.4f %7.2f %7.2f %7.2f %11.1f %11.1f  %5lld/%5lld/%5lld  "
           "%9.3g/%9.3g/%9.3g  %lld/%lld/%lld%s\n",
           k->name, size, med[PRIMAL], med[GENERATED], med[HAND], med[GENERATED] / med[PRIMAL],
           med[HAND] / med[PRIMAL], med[GENERATED] / med[HAND], mem_max[0] / 1048576.0,
           mem_max[1] / 1048576.0, p.msgs, rg.msgs, rh.msgs, (double)p.bytes,
           (double)rg.bytes, (double)rh.bytes, p.coll, rg.coll, rh.coll,
           comm_ok ? "" : "  FAIL: a reverse sweep sends more than the primal");
    fflush(stdout);
  }
  return failed;
}

/* ---- setting up ---------------------------------------------------------- */

static int setup_halo2d(kernel *k, int NX, int NY, int nsteps) {
  int size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], rank, io, jo;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  if (NX < dims[0] || NY < dims[1] || nsteps < 1)
    return 1;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &k->comm);
  MPI_Comm_rank(k->comm, &rank);
  MPI_Cart_coords(k->comm, rank, 2, coords);
  MPI_Cart_shift(k->comm, 0, 1, &k->nb[0], &k->nb[1]);
  MPI_Cart_shift(k->comm, 1, 1, &k->nb[2], &k->nb[3]);
  k->nx = block(NX, dims[0], coords[0], &io);
  k->ny = block(NY, dims[1], coords[1], &jo);
  k->nsteps = nsteps;
  k->r = 0.2 / 1.6;
  size_t n = (size_t)k->nx * k->ny;
  k->kappa = malloc(n * sizeof(double));
  k->u0 = malloc(n * sizeof(double));
  k->uobs = malloc(n * sizeof(double));
  const double PI = 3.14159265358979323846, h = 1.0 / (NX + 1);
  for (int i = 0; i < k->nx; i++)
    for (int j = 0; j < k->ny; j++) {
      double x = (io + i + 1) * h, y = (jo + j + 1) * h;
      unsigned long long s = lcg_state((unsigned long long)(io + i) * NY + (jo + j));
      k->kappa[i * k->ny + j] = 1.0 + 0.5 * lcg(&s);
      k->u0[i * k->ny + j] = sin(PI * x) * sin(PI * y) + 0.5 * sin(3 * PI * x) * sin(2 * PI * y);
      k->uobs[i * k->ny + j] = 0.9 * k->u0[i * k->ny + j];
    }
  k->ngrad = n;
  k->grad = malloc(n * sizeof(double));
  k->run = run_halo2d;
  return 0;
}

static int setup_star(kernel *k, int n, int iterations) {
  int P, r, nx, ny = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  for (nx = (int)sqrt(P + 1); nx > 0; nx--)
    if (P % nx == 0) {
      ny = P / nx;
      break;
    }
  if (n % nx || n % ny || n / nx < 2 || n / ny < 2 || iterations < 0)
    return 1;
  MPI_Comm_dup(MPI_COMM_WORLD, &k->comm);
  k->n = n;
  k->it = iterations;
  k->px = r % nx;
  k->py = r / nx;
  k->pnx = nx;
  k->pny = ny;
  int w = n / nx, h = n / ny;
  k->is = k->px * w;
  k->ie = k->is + w - 1;
  k->js = k->py * h;
  k->je = k->js + h - 1;
  k->nin = (size_t)(w + 4) * (h + 4);
  k->nout = (size_t)w * h;
  k->in0 = malloc(k->nin * sizeof(double));
  k->in = malloc(k->nin * sizeof(double));
  k->out = malloc(k->nout * sizeof(double));
  /* the corpus program's field i + j, scaled to order 1, plus a ripple */
  for (int b = 0; b < h + 4; b++)
    for (int a = 0; a < w + 4; a++) {
      int i = k->is + a - 2, j = k->js + b - 2;
      k->in0[a + (size_t)b * (w + 4)] = (double)(i + j) / n + 0.1 * sin(0.3 * i) * cos(0.2 * j);
    }
  k->ngrad = k->nin;
  k->grad = malloc(k->nin * sizeof(double));
  k->run = run_star;
  return 0;
}

static int setup_heat3d(kernel *k, int NX, int NY, int NZ, int T) {
  int P, r, zo;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (NZ < P || NX < 1 || NY < 1 || T < 0)
    return 1;
  MPI_Comm_dup(MPI_COMM_WORLD, &k->comm);
  k->hnx = NX;
  k->hny = NY;
  k->hnz = block(NZ, P, r, &zo);
  k->T = T;
  k->nu = 0.1;
  k->down = r > 0 ? r - 1 : MPI_PROC_NULL;
  k->up = r < P - 1 ? r + 1 : MPI_PROC_NULL;
  size_t n = (size_t)NX * NY * k->hnz;
  k->h0 = malloc(n * sizeof(double));
  fill(k->h0, n, 1000 + (unsigned long long)r, -1.0, 1.0);
  k->ngrad = n;
  k->grad = malloc(n * sizeof(double));
  k->run = run_heat3d;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int reps = 7, hx = 512, hy = 512, hs = 50, sn = 1536, sit = 10, tx = 128, ty = 128, tz = 128,
      tT = 20;
  const char *only = NULL;
  int bad = 0;
  for (int a = 1; a < argc; a++) {
    int left = argc - a - 1;
    if (!strcmp(argv[a], "-reps") && left >= 1)
      reps = atoi(argv[++a]);
    else if (!strcmp(argv[a], "-halo2d") && left >= 3) {
      hx = atoi(argv[a + 1]);
      hy = atoi(argv[a + 2]);
      hs = atoi(argv[a + 3]);
      a += 3;
    } else if (!strcmp(argv[a], "-star") && left >= 2) {
      sn = atoi(argv[a + 1]);
      sit = atoi(argv[a + 2]);
      a += 2;
    } else if (!strcmp(argv[a], "-heat3d") && left >= 4) {
      tx = atoi(argv[a + 1]);
      ty = atoi(argv[a + 2]);
      tz = atoi(argv[a + 3]);
      tT = atoi(argv[a + 4]);
      a += 4;
    } else if (!strcmp(argv[a], "-only") && left >= 1)
      only = argv[++a];
    else
      bad = 1;
  }
  if (bad || reps < 1) {
    if (rank == 0)
      fprintf(stderr,
              "usage: %s [-reps K] [-halo2d NX NY nsteps] [-star n iterations] "
              "[-heat3d NX NY NZ T] [-only halo2d|star|heat3d]\n",
              argv[0]);
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) {
    printf("stencil adjoint benchmark, %d ranks, median of %d: halo2d %d x %d, %d steps; "
           "star n = %d, %d iterations (+1); heat3d %d x %d x %d, %d steps\n",
           size, reps, hx, hy, hs, sn, sit, tx, ty, tz, tT);
    printf("%-7s %3s %9s %9s %9s %7s %7s %7s %11s %11s  %17s  %29s  %s\n", "kernel", "np",
           "primal s", "gen s", "hand s", "gen/p", "hand/p", "gen/h", "tape MiB", "state MiB",
           "msgs p/rg/rh", "bytes p/rg/rh", "coll p/rg/rh");
  }
  int failed = 0;
  kernel ks[3];
  memset(ks, 0, sizeof ks);
  ks[0].name = "halo2d";
  ks[1].name = "star";
  ks[2].name = "heat3d";
  int err[3] = {setup_halo2d(&ks[0], hx, hy, hs), setup_star(&ks[1], sn, sit),
                setup_heat3d(&ks[2], tx, ty, tz, tT)};
  for (int i = 0; i < 3; i++) {
    if (only && strcmp(only, ks[i].name))
      continue;
    if (err[i]) {
      if (rank == 0)
        printf("%-7s %3d sizes do not fit %d ranks: skipped\n", ks[i].name, size, size);
      failed = 1;
      continue;
    }
    failed |= measure(&ks[i], reps, rank, size);
  }
  if (rank == 0) {
    printf("(times: median seconds per call, slowest rank; tape: generated adjoint's peak, "
           "state: what the hand-written adjoint keeps, largest over ranks; msgs, bytes, coll: "
           "one primal call (p) and the reverse sweep of the generated (rg) and hand-written "
           "(rh) adjoint, summed over ranks)\n");
    printf("%s\n", failed ? "FAILED" : "OK");
  }
  for (int i = 0; i < 3; i++) {
    free(ks[i].grad);
    free(ks[i].kappa);
    free(ks[i].u0);
    free(ks[i].uobs);
    free(ks[i].in0);
    free(ks[i].in);
    free(ks[i].out);
    free(ks[i].h0);
    if (!err[i])
      MPI_Comm_free(&ks[i].comm);
  }
  MPI_Finalize();
  return failed;
}
