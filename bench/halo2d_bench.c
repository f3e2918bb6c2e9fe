/*
 * halo2d_bench.c - timing harness for the adjoint of the 2-D heat solver of
 * samples/halo2d (a non-blocking halo exchange, MPI_Irecv / MPI_Isend /
 * MPI_Waitall, overlapping the interior update), differentiated with respect
 * to the per-cell diffusivity kappa.  Two forms of the same solver:
 *   halo2d     packs the ghost columns into buffers by loops, gets its
 *              neighbours as ints and is one function (the sample as it
 *              was first written);
 *   halo2d_dt  is the sample as it is now: MPI_Cart_shift on the Cartesian
 *              communicator, the columns sent and received as one
 *              MPI_Type_vector each, and the exchange and the misfit in
 *              helpers.  It must give the same value and gradient, and its
 *              adjoint should cost no more than the packed form's.
 *
 * It measures, meant for 2 ranks:
 *   - primal time (halo2d) and adjoint time (value + gradient, the generated
 *     halo2d_b), and their ratio;
 *   - the tape's peak bytes during one adjoint call (mpiad_tape_reset_peak,
 *     then mpiad_tape_peak_bytes), the largest over ranks;
 *   - the point-to-point messages and bytes, and the collectives, of one
 *     primal call and one adjoint call, summed over all ranks.  Blocking
 *     calls and collectives are counted by bench/pmpi_count.c; the
 *     non-blocking ones (MPI_Isend, MPI_Irecv, and the waits) by the PMPI
 *     wrappers at the end of this file.  Calls made inside libmpiad (linked
 *     statically) are counted too.  The adjoint repeats the primal's
 *     messages in its forward sweep; its reverse sweep (adjoint - primal)
 *     must not send more messages or bytes, nor make more collectives, than
 *     the primal: the benchmark fails otherwise.
 * Times are the minimum over reps of the slowest rank (barrier, MPI_Wtime,
 * MPI_MAX), primal and adjoint interleaved round by round.
 *
 * Build and run (from the repository root, after building the project;
 * bench/run.sh does both):
 *
 *   build/bin/mpiad-cc -O2 -Ibench bench/halo2d_bench.c bench/pmpi_count.c \
 *       -lm -o build/bench/halo2d_bench
 *   mpirun --allow-run-as-root --oversubscribe --mca btl self,vader \
 *          --mca pml ob1 -np 2 build/bench/halo2d_bench [NX NY nsteps reps]
 *
 * (defaults 512 512 50 5).  Exits non-zero if the adjoint's value differs
 * from the primal's (relative 1e-12), its gradient fails a central
 * finite-difference check along a random direction (relative 1e-6), or its
 * reverse sweep communicates more than the primal.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"
#include "pmpi_count.h"

/* ---- the primal, packed form: samples/halo2d/halo2d.c before it used a --- */
/* ---- Cartesian communicator, a column datatype and helpers --------------- */

#pragma mpiad differentiate wrt(kappa) replicated(nsteps, r) \
    varying(kappa, u0, uobs, nx, ny, north, south, west, east) semantics(global) name(halo2d_b)
double halo2d(const double *kappa, const double *u0, const double *uobs,
              int nx, int ny, int nsteps, double r, int north, int south,
              int west, int east, MPI_Comm comm) {
  int ys = ny + 2; /* row stride of u, with the ghost columns */
  double *u = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  double *un = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  /* ghost columns: packed send buffers and receive buffers (west, east) */
  double *sw = malloc((size_t)nx * sizeof(double));
  double *se = malloc((size_t)nx * sizeof(double));
  double *rw = malloc((size_t)nx * sizeof(double));
  double *re = malloc((size_t)nx * sizeof(double));
  for (int i = 0; i < nx + 2; i++)
    for (int j = 0; j < ys; j++)
      u[i * ys + j] = 0.0; /* the ghosts at the physical boundary stay 0 */
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int i = 0; i < nx; i++) {
    rw[i] = 0.0; /* left as they are by a receive from MPI_PROC_NULL */
    re[i] = 0.0;
  }

  MPI_Request reqs[8];
  for (int t = 0; t < nsteps; t++) {
    /* 1. receive the ghost edges.  Tags name the direction the data moves:
     * 0 northwards, 1 southwards, 2 westwards, 3 eastwards. */
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, north, 1, comm, &reqs[0]);
    MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, south, 0, comm,
              &reqs[1]);
    MPI_Irecv(rw, nx, MPI_DOUBLE, west, 3, comm, &reqs[2]);
    MPI_Irecv(re, nx, MPI_DOUBLE, east, 2, comm, &reqs[3]);
    /* 2. send the boundary edges; the columns are packed first */
    for (int i = 1; i <= nx; i++) {
      sw[i - 1] = u[i * ys + 1];
      se[i - 1] = u[i * ys + ny];
    }
    MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, north, 0, comm, &reqs[4]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, south, 1, comm, &reqs[5]);
    MPI_Isend(sw, nx, MPI_DOUBLE, west, 2, comm, &reqs[6]);
    MPI_Isend(se, nx, MPI_DOUBLE, east, 3, comm, &reqs[7]);

    /* 3. the interior points that need no ghost, while messages fly */
    for (int i = 2; i < nx; i++)
      for (int j = 2; j < ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * kappa[(i - 1) * ny + (j - 1)] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }

    /* 4. wait for the 8 transfers, unpack the ghost columns */
    MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++) {
      u[i * ys] = rw[i - 1];
      u[i * ys + ny + 1] = re[i - 1];
    }

    /* 5. the boundary ring: first and last rows, then first and last
     * columns (without the corners).  With nx == 1 or ny == 1 a point is
     * updated twice, to the same value. */
    for (int j = 1; j <= ny; j++) {
      int c = ys + j;
      un[c] = u[c] + r * kappa[j - 1] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = nx * ys + j;
      un[d] = u[d] + r * kappa[(nx - 1) * ny + (j - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 2; i < nx; i++) {
      int c = i * ys + 1;
      un[c] = u[c] + r * kappa[(i - 1) * ny] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = i * ys + ny;
      un[d] = u[d] + r * kappa[(i - 1) * ny + (ny - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }

  double local = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
      local += d * d;
    }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(re);
  free(rw);
  free(se);
  free(sw);
  free(un);
  free(u);
  return J;
}

/* ---- the primal as samples/halo2d/halo2d.c has it: MPI_Cart_shift, ------ */
/* ---- MPI_Type_vector columns, start_halo / finish_halo / misfit helpers --- */

/* Posts the exchange of the ghost layer of u: rows are contiguous, a column
 * is one item of `col` (nx doubles, a row stride apart).  Tags name the
 * direction the data moves: 0 northwards, 1 southwards, 2 westwards, 3
 * eastwards.  Neighbours are MPI_PROC_NULL at the physical boundary, where
 * the ghosts keep their zeros.  The 8 requests are completed by
 * finish_halo. */
static void start_halo(double *u, int nx, int ny, MPI_Datatype col,
                       int north, int south, int west, int east,
                       MPI_Comm comm, MPI_Request *reqs) {
  int ys = ny + 2;
  MPI_Irecv(&u[1], ny, MPI_DOUBLE, north, 1, comm, &reqs[0]);
  MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, south, 0, comm, &reqs[1]);
  MPI_Irecv(&u[ys], 1, col, west, 3, comm, &reqs[2]);
  MPI_Irecv(&u[ys + ny + 1], 1, col, east, 2, comm, &reqs[3]);
  MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, north, 0, comm, &reqs[4]);
  MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, south, 1, comm, &reqs[5]);
  MPI_Isend(&u[ys + 1], 1, col, west, 2, comm, &reqs[6]);
  MPI_Isend(&u[ys + ny], 1, col, east, 3, comm, &reqs[7]);
}

static void finish_halo(MPI_Request *reqs) {
  MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
}

/* The misfit of u's interior with the observations, over the whole grid. */
static double misfit(const double *u, const double *uobs, int nx, int ny,
                     MPI_Comm comm) {
  int ys = ny + 2;
  double local = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
      local += d * d;
    }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

#pragma mpiad differentiate wrt(kappa) replicated(nsteps, r) \
    varying(kappa, u0, uobs, nx, ny) semantics(global) name(halo2d_dt_b)
double halo2d_dt(const double *kappa, const double *u0, const double *uobs,
              int nx, int ny, int nsteps, double r, MPI_Comm cart) {
  int north, south, west, east;
  MPI_Cart_shift(cart, 0, 1, &north, &south);
  MPI_Cart_shift(cart, 1, 1, &west, &east);
  int ys = ny + 2; /* row stride of u, with the ghost columns */
  MPI_Datatype col; /* one column of the interior rows */
  MPI_Type_vector(nx, 1, ys, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  double *u = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  double *un = malloc((size_t)(nx + 2) * (size_t)ys * sizeof(double));
  for (int i = 0; i < nx + 2; i++)
    for (int j = 0; j < ys; j++)
      u[i * ys + j] = 0.0; /* the ghosts at the physical boundary stay 0 */
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];

  MPI_Request reqs[8];
  for (int t = 0; t < nsteps; t++) {
    start_halo(u, nx, ny, col, north, south, west, east, cart, reqs);

    /* the interior points that need no ghost, while messages fly */
    for (int i = 2; i < nx; i++)
      for (int j = 2; j < ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * kappa[(i - 1) * ny + (j - 1)] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }

    finish_halo(reqs);

    /* the boundary ring: first and last rows, then first and last columns
     * (without the corners).  With nx == 1 or ny == 1 a point is updated
     * twice, to the same value. */
    for (int j = 1; j <= ny; j++) {
      int c = ys + j;
      un[c] = u[c] + r * kappa[j - 1] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = nx * ys + j;
      un[d] = u[d] + r * kappa[(nx - 1) * ny + (j - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 2; i < nx; i++) {
      int c = i * ys + 1;
      un[c] = u[c] + r * kappa[(i - 1) * ny] *
                         (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                          4.0 * u[c]);
      int d = i * ys + ny;
      un[d] = u[d] + r * kappa[(i - 1) * ny + (ny - 1)] *
                         (u[d - ys] + u[d + ys] + u[d - 1] + u[d + 1] -
                          4.0 * u[d]);
    }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }

  double J = misfit(u, uobs, nx, ny, cart);
  MPI_Type_free(&col);
  free(un);
  free(u);
  return J;
}

/* ---- PMPI counting of the non-blocking calls ----------------------------- */
/* pmpi_count.c counts blocking point-to-point calls and collectives.  These
 * wrappers count what it does not: MPI_Isend / MPI_Irecv (calls, and bytes
 * to or from a real neighbour: a call with MPI_PROC_NULL moves nothing) and
 * the waits.  They are weak, so that if pmpi_count.c ever counts these calls
 * itself its wrappers win (and land in its p2p counters) instead of a
 * duplicate-symbol error. */

static long long nb_isend, nb_irecv, nb_msgs, nb_bytes_sent, nb_bytes_recv,
    nb_waits;

static void nb_reset(void) {
  nb_isend = nb_irecv = nb_msgs = nb_bytes_sent = nb_bytes_recv = nb_waits =
      0;
}

static long long nb_type_bytes(int count, MPI_Datatype t) {
  int sz = 0;
  PMPI_Type_size(t, &sz);
  return (long long)count * sz;
}

__attribute__((weak)) int MPI_Isend(const void *buf, int count,
                                    MPI_Datatype datatype, int dest, int tag,
                                    MPI_Comm comm, MPI_Request *request) {
  nb_isend++;
  if (dest != MPI_PROC_NULL) {
    nb_msgs++;
    nb_bytes_sent += nb_type_bytes(count, datatype);
  }
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

__attribute__((weak)) int MPI_Irecv(void *buf, int count,
                                    MPI_Datatype datatype, int source, int tag,
                                    MPI_Comm comm, MPI_Request *request) {
  nb_irecv++;
  if (source != MPI_PROC_NULL)
    nb_bytes_recv += nb_type_bytes(count, datatype);
  return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

__attribute__((weak)) int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  nb_waits++;
  return PMPI_Wait(request, status);
}

__attribute__((weak)) int MPI_Waitall(int count, MPI_Request requests[],
                                      MPI_Status statuses[]) {
  nb_waits++;
  return PMPI_Waitall(count, requests, statuses);
}

/* One call's communication, summed over all ranks. */
typedef struct {
  long long isend, irecv, nb_msgs, nb_sent, nb_recv, waits; /* this file */
  long long p2p_calls, p2p_bytes, coll_calls, coll_bytes; /* pmpi_count.c */
} comm_counts;

static void counts_reset(void) {
  nb_reset();
  pmpi_count_reset();
}

static comm_counts counts_read(MPI_Comm comm) {
  pmpi_counts p = pmpi_count_read();
  long long loc[10] = {nb_isend,    nb_irecv,      nb_msgs,
                       nb_bytes_sent, nb_bytes_recv, nb_waits,
                       p.p2p_calls, p.p2p_bytes,   p.coll_calls,
                       p.coll_bytes};
  long long all[10];
  PMPI_Allreduce(loc, all, 10, MPI_LONG_LONG, MPI_SUM, comm);
  comm_counts c = {all[0], all[1], all[2], all[3], all[4],
                   all[5], all[6], all[7], all[8], all[9]};
  return c;
}

/* Messages and payload sent: non-blocking sends to a real neighbour plus
 * blocking p2p calls (pmpi_count.c cannot tell MPI_PROC_NULL apart). */
static long long msgs(comm_counts c) { return c.nb_msgs + c.p2p_calls; }
static long long msg_bytes(comm_counts c) { return c.nb_sent + c.p2p_bytes; }

/* ---- driver -------------------------------------------------------------- */

static double lcg_uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int block(int n, int p, int c, int *off) {
  *off = c * (n / p) + (c < n % p ? c : n % p);
  return n / p + (c < n % p ? 1 : 0);
}

typedef struct {
  int nx, ny, nsteps;
  double r;
  int nb[4];
  double *kappa, *g;
  const double *u0, *uobs;
  MPI_Comm comm;
  double value;
} bench_ctx;

enum { PRIMAL, ADJOINT, DT_PRIMAL, DT_ADJOINT, NKIND };
static const char *kind_name[NKIND] = {"primal halo2d", "generated halo2d_b",
                                       "primal halo2d_dt",
                                       "generated halo2d_dt_b"};

static void run_kind(bench_ctx *c, int kind) {
  if (kind == PRIMAL) {
    c->value = halo2d(c->kappa, c->u0, c->uobs, c->nx, c->ny, c->nsteps, c->r,
                      c->nb[0], c->nb[1], c->nb[2], c->nb[3], c->comm);
  } else if (kind == ADJOINT) {
    for (int k = 0; k < c->nx * c->ny; k++)
      c->g[k] = 0.0;
    c->value = halo2d_b(c->kappa, c->g, c->u0, c->uobs, c->nx, c->ny,
                        c->nsteps, c->r, c->nb[0], c->nb[1], c->nb[2],
                        c->nb[3], c->comm, 1.0);
  } else if (kind == DT_PRIMAL) {
    c->value = halo2d_dt(c->kappa, c->u0, c->uobs, c->nx, c->ny, c->nsteps,
                         c->r, c->comm);
  } else {
    for (int k = 0; k < c->nx * c->ny; k++)
      c->g[k] = 0.0;
    c->value = halo2d_dt_b(c->kappa, c->g, c->u0, c->uobs, c->nx, c->ny,
                           c->nsteps, c->r, c->comm, 1.0);
  }
}

static double objective(void *p) {
  bench_ctx *c = p;
  run_kind(c, PRIMAL);
  return c->value;
}

/* The slowest rank's time for one call. */
static double time_kind(bench_ctx *c, int kind) {
  MPI_Barrier(c->comm);
  double t0 = MPI_Wtime();
  run_kind(c, kind);
  double t = MPI_Wtime() - t0, tmax = 0.0;
  PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
  return tmax;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, wrank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int NX = argc > 1 ? atoi(argv[1]) : 512;
  int NY = argc > 2 ? atoi(argv[2]) : 512;
  int nsteps = argc > 3 ? atoi(argv[3]) : 50;
  int reps = argc > 4 ? atoi(argv[4]) : 5;
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  if (NX < dims[0] || NY < dims[1] || nsteps < 1 || reps < 1) {
    if (wrank == 0)
      fprintf(stderr, "usage: %s [NX NY nsteps reps]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Cart_coords(comm, rank, 2, coords);
  int nb[4];
  MPI_Cart_shift(comm, 0, 1, &nb[0], &nb[1]);
  MPI_Cart_shift(comm, 1, 1, &nb[2], &nb[3]);
  int ioff, joff;
  int nx = block(NX, dims[0], coords[0], &ioff);
  int ny = block(NY, dims[1], coords[1], &joff);
  int n = nx * ny;
  double h = 1.0 / (NX + 1), r = 0.2 / 1.6;
  const double PI = 3.14159265358979323846;

  double *kappa = malloc((size_t)n * sizeof *kappa);
  double *u0 = malloc((size_t)n * sizeof *u0);
  double *uobs = malloc((size_t)n * sizeof *uobs);
  double *g = malloc((size_t)n * sizeof *g);
  double *dk = malloc((size_t)n * sizeof *dk);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      double x = (ioff + i + 1) * h, y = (joff + j + 1) * h;
      unsigned long long s =
          ((unsigned long long)(ioff + i) * NY + (joff + j)) *
              0x9E3779B97F4A7C15ULL +
          12345u;
      lcg_uniform(&s);
      kappa[i * ny + j] = 1.0 + 0.5 * lcg_uniform(&s);
      dk[i * ny + j] = lcg_uniform(&s); /* >= 0: no cancellation in <g, dk> */
      u0[i * ny + j] = sin(PI * x) * sin(PI * y) +
                       0.5 * sin(3.0 * PI * x) * sin(2.0 * PI * y);
      uobs[i * ny + j] = 0.9 * u0[i * ny + j];
    }
  bench_ctx c = {nx, ny, nsteps, r, {nb[0], nb[1], nb[2], nb[3]}, kappa, g,
                 u0, uobs, comm, 0.0};

  if (rank == 0)
    printf("halo2d adjoint benchmark: %d ranks (%d x %d grid), %d x %d "
           "points (%d x %d per rank), %d steps, best of %d\n",
           size, dims[0], dims[1], NX, NY, NX / dims[0], NY / dims[1],
           nsteps, reps);

  /* Correctness: value against the primal, gradient against a central
   * difference along a random direction. */
  int failed = 0;
  run_kind(&c, PRIMAL);
  double J = c.value;
  run_kind(&c, ADJOINT);
  double Jb = c.value;
  failed |= mpiad_check_close("J (halo2d_b vs halo2d)", Jb, J, 1e-12, 1e-300,
                              comm);
  mpiad_input in[1] = {{kappa, dk, (size_t)n, 0}};
  double fd = mpiad_fd_directional(objective, &c, in, 1, 1e-4);
  double *grads[1] = {g};
  double ad = mpiad_adjoint_directional(in, grads, 1, comm);
  failed |= mpiad_check_close("dJ/dkappa (adjoint vs central difference)", ad,
                              fd, 1e-6, 1e-12, comm);
  /* The datatype form: the same value and gradient. */
  double *g0 = malloc((size_t)n * sizeof *g0);
  for (int k = 0; k < n; k++)
    g0[k] = g[k];
  run_kind(&c, DT_PRIMAL);
  failed |= mpiad_check_close("J (halo2d_dt vs halo2d)", c.value, J, 1e-12,
                              1e-300, comm);
  run_kind(&c, DT_ADJOINT);
  failed |= mpiad_check_close("J (halo2d_dt_b vs halo2d)", c.value, J, 1e-12,
                              1e-300, comm);
  double *g0p[1] = {g0};
  failed |= mpiad_check_close(
      "dJ/dkappa (halo2d_dt_b vs halo2d_b)",
      mpiad_adjoint_directional(in, grads, 1, comm),
      mpiad_adjoint_directional(in, g0p, 1, comm), 1e-12, 1e-300, comm);
  free(g0);

  /* Timing: best of reps, the two kinds interleaved. */
  double t[NKIND];
  for (int k = 0; k < NKIND; k++)
    t[k] = 1e300;
  for (int rep = 0; rep < reps; rep++)
    for (int k = 0; k < NKIND; k++) {
      double tk = time_kind(&c, k);
      if (tk < t[k])
        t[k] = tk;
    }

  /* Tape and communication of one call of each. */
  unsigned long long tape[NKIND], tape_max[NKIND];
  comm_counts cc[NKIND];
  for (int k = 0; k < NKIND; k++) {
    MPI_Barrier(comm);
    mpiad_tape_reset_peak();
    size_t before = mpiad_tape_bytes();
    counts_reset();
    run_kind(&c, k);
    cc[k] = counts_read(comm);
    tape[k] = mpiad_tape_peak_bytes() - before;
  }
  PMPI_Allreduce(tape, tape_max, NKIND, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                 comm);

  comm_counts p = cc[PRIMAL], a = cc[ADJOINT];
  long long rev_msgs = msgs(a) - msgs(p);
  long long rev_bytes = msg_bytes(a) - msg_bytes(p);
  long long rev_coll = a.coll_calls - p.coll_calls;
  int comm_ok = rev_msgs <= msgs(p) && rev_bytes <= msg_bytes(p) &&
                rev_coll <= p.coll_calls;
  comm_counts dp = cc[DT_PRIMAL], da = cc[DT_ADJOINT];
  int dt_comm_ok = msgs(da) - msgs(dp) <= msgs(dp) &&
                   msg_bytes(da) - msg_bytes(dp) <= msg_bytes(dp) &&
                   da.coll_calls - dp.coll_calls <= dp.coll_calls;
  if (!comm_ok || !dt_comm_ok)
    failed = 1;

  if (rank == 0) {
    printf("\n%-22s %10s %8s %14s %8s %8s %8s %6s %12s %6s\n", "", "time [s]",
           "/primal", "tape peak [B]", "Isend", "Irecv", "p2p", "waits",
           "bytes sent", "coll");
    for (int k = 0; k < NKIND; k++)
      printf("%-22s %10.4f %8.2f %14llu %8lld %8lld %8lld %6lld %12lld "
             "%6lld\n",
             kind_name[k], t[k], t[k] / t[PRIMAL], tape_max[k], cc[k].isend,
             cc[k].irecv, cc[k].p2p_calls, cc[k].waits, msg_bytes(cc[k]),
             cc[k].coll_calls);
    printf("(one call of each, summed over ranks; p2p: blocking Send / Recv / "
           "Sendrecv; bytes sent: to real neighbours, not MPI_PROC_NULL; "
           "tape: the largest over ranks)\n");
    printf("adjoint/primal time ratio %.2f\n", t[ADJOINT] / t[PRIMAL]);
    printf("datatype form: adjoint/primal time ratio %.2f, adjoint vs the "
           "packed form's adjoint %.2f; reverse sweep messages %lld (%lld "
           "B), collectives %lld: %s\n",
           t[DT_ADJOINT] / t[DT_PRIMAL], t[DT_ADJOINT] / t[ADJOINT],
           msgs(da) - msgs(dp), msg_bytes(da) - msg_bytes(dp),
           da.coll_calls - dp.coll_calls,
           dt_comm_ok ? "reverse <= primal OK"
                      : "FAIL: the reverse sweep communicates more than the "
                        "primal");
    printf("messages sent: primal %lld (%lld B), adjoint %lld (%lld B), "
           "reverse sweep %lld (%lld B); collectives: primal %lld, reverse "
           "sweep %lld: %s\n",
           msgs(p), msg_bytes(p), msgs(a), msg_bytes(a), rev_msgs, rev_bytes,
           p.coll_calls, rev_coll,
           comm_ok ? "reverse <= primal OK"
                   : "FAIL: the reverse sweep communicates more than the "
                     "primal");
    printf("%s\n", failed ? "FAILED" : "OK");
  }
  free(dk);
  free(g);
  free(uobs);
  free(u0);
  free(kappa);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failed;
}
