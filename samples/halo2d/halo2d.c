/*
 * halo2d.c - recovering a diffusivity field from the result of a 2-D heat
 * solver whose halo exchange is non-blocking (MPI_Isend / MPI_Irecv /
 * MPI_Waitall) and overlaps the interior update, with the adjoint that
 * mpiad-cc generates from the solver.
 *
 * The model: u_t = kappa(x, y) (u_xx + u_yy) on the unit square, u = 0 on
 * the boundary, on an NX-by-NY grid of interior points with spacing h (the
 * same in both directions), explicit Euler with r = dt / h^2:
 *
 *     u_ij <- u_ij + r kappa_ij (u_i-1,j + u_i+1,j + u_i,j-1 + u_i,j+1 - 4 u_ij)
 *
 * stable while r kappa <= 1/4.  The grid is split over a 2-D process grid
 * (MPI_Dims_create + MPI_Cart_create in main, not periodic): rank (pi, pj)
 * owns an nx-by-ny block of rows and columns (block sizes may differ by
 * one).  Each rank keeps its block in a flat array of (nx + 2) * (ny + 2)
 * doubles with one ghost layer, u[i * (ny + 2) + j], i = 0..nx+1,
 * j = 0..ny+1; rows are contiguous, columns are not.
 *
 * The solver is written the way such codes are: `halo2d` takes the Cartesian
 * communicator and asks it for the neighbours (MPI_Cart_shift; MPI_PROC_NULL
 * at the physical boundary, where the ghosts stay 0), describes a column
 * with a derived datatype (MPI_Type_vector), and each time step
 *   1. start_halo: MPI_Irecv of the 4 ghost edges and MPI_Isend of the 4
 *      boundary edges, rows as MPI_DOUBLE, columns as one `col` each;
 *   2. updates the interior points that need no ghost (rows 2..nx-1,
 *      columns 2..ny-1) while the messages are in flight;
 *   3. finish_halo: MPI_Waitall on the 8 requests;
 *   4. updates the boundary ring (rows 1 and nx, columns 1 and ny), then
 *      copies the new values back.
 * The requests cross the helpers' boundaries: started in one, completed in
 * the other.
 *
 * The objective, computed by the helper `misfit`, compares u(T) after nsteps
 * steps from u0 with observations uobs on every grid point:
 *
 *     J = sum over the global grid of (u_ij(T) - uobs_ij)^2
 *
 * a local sum and one MPI_Allreduce SUM.  The pragma asks for its gradient
 * with respect to the per-cell diffusivity kappa, which varies per rank (each
 * rank owns its block of kappa); nsteps and r are replicated:
 *
 *     double halo2d_b(const double *kappa, double *kappa_b, const double *u0,
 *                     const double *uobs, int nx, int ny, int nsteps,
 *                     double r, MPI_Comm cart, double halo2d_bar);
 *
 * returns J and adds halo2d_bar * dJ/dkappa_ij to kappa_b for this rank's
 * cells.  mpiad-cc inlines the three helpers.  In the reverse sweep, each
 * MPI_Waitall starts the reverse transfers (the ghosts' adjoints travel back
 * to the ranks owning the cells; a column's adjoint is added through the
 * column's layout) and the adjoints of the MPI_Isend / MPI_Irecv calls
 * complete them.  The column type is freed at the end of the reverse sweep.
 *
 * The program:
 *   1. makes a hidden diffusivity kappa_true (1 plus two smooth bumps), a
 *      smooth initial field u0, and the observations uobs = u(T) computed
 *      with kappa_true by plain MPI code (solve, below);
 *   2. starting from kappa = 1.3 everywhere, runs gradient descent with a
 *      backtracking line search (kappa kept in the stable range), using
 *      halo2d_b for the value and gradient; rank 0 prints "iter k misfit J";
 *   3. checks dJ/dkappa against central finite differences along 3 random
 *      directions (mpiad_fd_directional / mpiad_adjoint_directional /
 *      mpiad_check_close, rtol 1e-6) at a random point near kappa_true.
 * Everything random is drawn per global grid point, so the printed numbers
 * do not depend on the number of ranks (to rounding).
 *
 * Usage: mpirun -np P ./halo2d [NX NY nsteps iters]   (defaults 64 64 100 20)
 *
 * Exit status 0 only if the misfit went down by at least a factor 10, the
 * misfit at kappa_true is zero (halo2d agrees with solve), all three
 * gradient checks pass and the tape is empty afterwards.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiad.h"

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
    varying(kappa, u0, uobs, nx, ny) semantics(global) name(halo2d_b)
double halo2d(const double *kappa, const double *u0, const double *uobs,
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

/* ------------------------------------------------------------------------- */
/* Everything below is ordinary MPI code: set-up, optimisation, checks.      */
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

/* This process-grid coordinate's share of n points: [*off, *off + count). */
static int block(int n, int p, int c, int *off) {
  *off = c * (n / p) + (c < n % p ? c : n % p);
  return n / p + (c < n % p ? 1 : 0);
}

/* The hidden diffusivity: 1 plus two smooth bumps (max about 1.6). */
static double true_kappa(double x, double y) {
  double a = (x - 0.3) * (x - 0.3) + (y - 0.35) * (y - 0.35);
  double b = (x - 0.7) * (x - 0.7) + (y - 0.6) * (y - 0.6);
  return 1.0 + 0.6 * exp(-a / 0.02) + 0.4 * exp(-b / 0.01);
}

/* The initial field: smooth, with structure at several scales. */
static double initial_u(double x, double y) {
  const double PI = 3.14159265358979323846;
  return sin(PI * x) * sin(PI * y) + 0.5 * sin(3.0 * PI * x) * sin(2.0 * PI * y) +
         0.25 * sin(5.0 * PI * x) * sin(4.0 * PI * y);
}

/* u(T) from u0 with the same scheme as halo2d, kept separate (and unmarked)
 * so that the observations come from plain MPI code written another way:
 * the ghost columns are packed into and unpacked from buffers by loops, and
 * the neighbours are given. */
static void solve(const double *kappa, const double *u0, double *uT, int nx,
                  int ny, int nsteps, double r, const int nb[4],
                  MPI_Comm comm) {
  int ys = ny + 2;
  size_t m = (size_t)(nx + 2) * (size_t)ys;
  double *u = calloc(m, sizeof *u), *un = calloc(m, sizeof *un);
  double *sw = malloc((size_t)nx * sizeof *sw);
  double *se = malloc((size_t)nx * sizeof *se);
  double *rw = calloc((size_t)nx, sizeof *rw);
  double *re = calloc((size_t)nx, sizeof *re);
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      u[i * ys + j] = u0[(i - 1) * ny + (j - 1)];
  for (int t = 0; t < nsteps; t++) {
    MPI_Request q[8];
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, nb[0], 1, comm, &q[0]);
    MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, nb[1], 0, comm, &q[1]);
    MPI_Irecv(rw, nx, MPI_DOUBLE, nb[2], 3, comm, &q[2]);
    MPI_Irecv(re, nx, MPI_DOUBLE, nb[3], 2, comm, &q[3]);
    for (int i = 1; i <= nx; i++) {
      sw[i - 1] = u[i * ys + 1];
      se[i - 1] = u[i * ys + ny];
    }
    MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, nb[0], 0, comm, &q[4]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, nb[1], 1, comm, &q[5]);
    MPI_Isend(sw, nx, MPI_DOUBLE, nb[2], 2, comm, &q[6]);
    MPI_Isend(se, nx, MPI_DOUBLE, nb[3], 3, comm, &q[7]);
    MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++) {
      u[i * ys] = rw[i - 1];
      u[i * ys + ny + 1] = re[i - 1];
    }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * kappa[(i - 1) * ny + (j - 1)] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] -
                            4.0 * u[c]);
      }
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
        u[i * ys + j] = un[i * ys + j];
  }
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      uT[(i - 1) * ny + (j - 1)] = u[i * ys + j];
  free(re);
  free(rw);
  free(se);
  free(sw);
  free(un);
  free(u);
}

/* The problem on this rank. */
typedef struct {
  int nx, ny, nsteps;
  double r;
  int nb[4]; /* north, south, west, east (MPI_PROC_NULL at the boundary) */
  double *kappa;      /* current diffusivity (this rank's block) */
  const double *u0;   /* initial field */
  const double *uobs; /* observations of u(T) */
  MPI_Comm comm;      /* the Cartesian communicator */
} halo_ctx;

static double objective_at(halo_ctx *c, const double *kappa) {
  return halo2d(kappa, c->u0, c->uobs, c->nx, c->ny, c->nsteps, c->r, c->comm);
}

static double objective(void *p) {
  halo_ctx *c = p;
  return objective_at(c, c->kappa);
}

/* J and, added to g (zeroed here), dJ/dkappa. */
static double value_and_gradient(halo_ctx *c, double *g) {
  int n = c->nx * c->ny;
  for (int k = 0; k < n; k++)
    g[k] = 0.0;
  return halo2d_b(c->kappa, g, c->u0, c->uobs, c->nx, c->ny, c->nsteps, c->r,
                  c->comm, 1.0);
}

/* Gradient descent with a backtracking (Armijo) line search; a trial step
 * that leaves the stable range 0 < kappa <= kmax on any rank is shortened.
 * Returns the final misfit; *first gets the initial one. */
static double recover_kappa(halo_ctx *c, int iters, double kmax, int rank,
                            double *first) {
  int n = c->nx * c->ny;
  double *g = malloc((size_t)n * sizeof *g);
  double *trial = malloc((size_t)n * sizeof *trial);
  double step = 1.0, J = 0.0;
  for (int k = 0; k < iters; k++) {
    J = value_and_gradient(c, g);
    if (k == 0)
      *first = J;
    if (rank == 0)
      printf("iter %d misfit %.10e\n", k, J);
    double gg = mpiad_dot(g, g, (size_t)n, 0, c->comm); /* |grad J|^2 */
    if (!(gg > 0.0))
      break;
    step *= 4.0; /* try a longer step than last time first */
    for (int tries = 0; tries < 40; tries++, step *= 0.5) {
      int ok = 1, all_ok = 0;
      for (int i = 0; i < n; i++) {
        trial[i] = c->kappa[i] - step * g[i];
        if (!(trial[i] > 0.0 && trial[i] <= kmax))
          ok = 0;
      }
      MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
      if (!all_ok)
        continue;
      if (objective_at(c, trial) <= J - 1e-4 * step * gg)
        break;
    }
    for (int i = 0; i < n; i++)
      c->kappa[i] = trial[i];
  }
  J = objective(c);
  if (rank == 0)
    printf("iter %d misfit %.10e\n", iters, J);
  free(trial);
  free(g);
  return J;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, wrank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);

  int NX = argc > 1 ? atoi(argv[1]) : 64;
  int NY = argc > 2 ? atoi(argv[2]) : 64;
  int nsteps = argc > 3 ? atoi(argv[3]) : 100;
  int iters = argc > 4 ? atoi(argv[4]) : 20;

  /* The process grid and this rank's neighbours. */
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  if (NX < dims[0] || NY < dims[1] || nsteps < 1 || iters < 1) {
    if (wrank == 0)
      fprintf(stderr,
              "usage: %s [NX NY nsteps iters] (NX >= %d, NY >= %d, "
              "nsteps > 0, iters > 0)\n",
              argv[0], dims[0], dims[1]);
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Cart_coords(comm, rank, 2, coords);
  int nb[4];
  MPI_Cart_shift(comm, 0, 1, &nb[0], &nb[1]); /* north, south */
  MPI_Cart_shift(comm, 1, 1, &nb[2], &nb[3]); /* west, east */
  int ioff, joff;
  int nx = block(NX, dims[0], coords[0], &ioff);
  int ny = block(NY, dims[1], coords[1], &joff);
  int n = nx * ny;

  /* Grid: interior points x_i = (i + 1) h, i = 0..NX-1, likewise y, with the
   * same spacing h in both directions; the boundary is at 0 and 1 in x. */
  double h = 1.0 / (NX + 1);
  const double kmax_true = 1.6;
  double r = 0.2 / kmax_true; /* r kappa_true <= 0.2; stable up to 1/(4r) */
  if (rank == 0)
    printf("halo2d inverse problem: %d ranks (%d x %d grid), %d x %d points, "
           "%d steps (T = %g), %d iterations\n",
           size, dims[0], dims[1], NX, NY, nsteps, nsteps * r * h * h, iters);

  double *kappa = malloc((size_t)n * sizeof *kappa);
  double *kappa_true = malloc((size_t)n * sizeof *kappa_true);
  double *u0 = malloc((size_t)n * sizeof *u0);
  double *uobs = malloc((size_t)n * sizeof *uobs);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      double x = (ioff + i + 1) * h, y = (joff + j + 1) * h;
      kappa_true[i * ny + j] = true_kappa(x, y);
      u0[i * ny + j] = initial_u(x, y);
    }
  solve(kappa_true, u0, uobs, nx, ny, nsteps, r, nb, comm);

  int failed = 0;
  halo_ctx ctx = {nx, ny, nsteps, r, {nb[0], nb[1], nb[2], nb[3]},
                  kappa, u0, uobs, comm};

  /* 1. Recover kappa from 1.3 everywhere. */
  for (int k = 0; k < n; k++)
    kappa[k] = 1.3;
  double J0 = 0.0;
  double J1 = recover_kappa(&ctx, iters, 0.25 / r, rank, &J0);
  double sums[2] = {0.0, 0.0}, gsums[2];
  for (int k = 0; k < n; k++) {
    double d0 = 1.3 - kappa_true[k], d1 = kappa[k] - kappa_true[k];
    sums[0] += d0 * d0;
    sums[1] += d1 * d1;
  }
  MPI_Allreduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, comm);
  if (rank == 0)
    printf("kappa: misfit %.4e -> %.4e (factor %.1f), rms error of kappa "
           "%.4f -> %.4f\n",
           J0, J1, J0 / J1, sqrt(gsums[0] / (NX * (double)NY)),
           sqrt(gsums[1] / (NX * (double)NY)));
  if (!(J1 < 0.1 * J0)) {
    if (rank == 0)
      printf("FAIL: the misfit did not go down by a factor 10\n");
    failed = 1;
  }
  /* The marked solver and the plain one (solve) agree: zero misfit at the
   * true diffusivity. */
  double Jtrue = objective_at(&ctx, kappa_true);
  if (rank == 0)
    printf("misfit at kappa_true: %.3e\n", Jtrue);
  if (!(Jtrue <= 1e-20 * J0)) {
    if (rank == 0)
      printf("FAIL: halo2d and solve disagree at kappa_true\n");
    failed = 1;
  }

  /* 2. Gradient checks at a random point near kappa_true, along 3 random
   * directions, all drawn per global grid point. */
  double *dk = malloc((size_t)n * sizeof *dk);
  double *g = malloc((size_t)n * sizeof *g);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      unsigned long long gi = (unsigned long long)(ioff + i) * NY + (joff + j);
      unsigned long long s = lcg_seed(7 + gi);
      kappa[i * ny + j] = kappa_true[i * ny + j] + 0.2 * (lcg_uniform(&s) - 0.5);
    }
  value_and_gradient(&ctx, g);
  for (int dir = 0; dir < 3; dir++) {
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++) {
        unsigned long long gi =
            (unsigned long long)(ioff + i) * NY + (joff + j);
        unsigned long long s = lcg_seed(1000003ULL * (dir + 1) + gi);
        dk[i * ny + j] = 2.0 * lcg_uniform(&s) - 1.0;
      }
    mpiad_input in[1] = {{kappa, dk, (size_t)n, 0}};
    /* h = 1e-6: the truncation error (~h^2) and the rounding error (~1/h)
     * of the central difference are both about 1e-9 relative here */
    double fd = mpiad_fd_directional(objective, &ctx, in, 1, 1e-6);
    double *grads[1] = {g};
    double ad = mpiad_adjoint_directional(in, grads, 1, comm);
    char label[96];
    snprintf(label, sizeof label,
             "dJ/dkappa direction %d (adjoint vs central difference)", dir);
    if (mpiad_check_close(label, ad, fd, 1e-6, 1e-12, comm))
      failed = 1;
  }

  if (mpiad_tape_bytes() != 0) {
    if (rank == 0)
      printf("FAIL: %zu bytes left on the tape\n", mpiad_tape_bytes());
    failed = 1;
  }

  if (rank == 0)
    printf("%s\n", failed ? "FAILED" : "OK");
  free(g);
  free(dk);
  free(uobs);
  free(u0);
  free(kappa_true);
  free(kappa);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failed;
}
