/*
 * handwritten_stencils.c - adjoints of the stencil benchmark's kernels
 * (stencils.c) written by hand, the way an expert would: same signatures and
 * semantics as the generated ones (value returned; kappa_b and u0_b
 * accumulated with +=; in_b holds the seed of the final `in` on entry and the
 * adjoint of the initial `in` on return), and every trick the problems allow:
 *
 *   - no copy-back: the forward sweep swaps buffers, or writes each step
 *     straight into the trajectory it keeps;
 *   - no tape: what the reverse sweep needs is kept in plain arrays, and
 *     nothing is kept for the linear steps (heat3d keeps only its final
 *     field, which J needs);
 *   - the transposed stencils in gather form (each adjoint point written
 *     once, the loops vectorize), the adjoint fields ping-ponged;
 *   - the adjoint halo exchange sends what the primal received and no more:
 *     a ghost's adjoint goes back to the rank that owns the point.
 *
 * stencil_hand_state_bytes reports, after each call, the bytes kept for the
 * reverse sweep (see stencils.h).  test/lit/exec/handwritten_stencils.c
 * checks each function against central differences at 1 to 4 ranks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stencils.h"

size_t stencil_hand_state_bytes;

/* The state kept for the reverse sweep lives in buffers that grow and are
 * kept from call to call, as the tape's chunks are (so neither side pays the
 * page faults of fresh memory on every call).  Not thread-safe, like the
 * tape. */
enum { WS_HALO2D_TRAJ, WS_STAR_SAVE, WS_COUNT };
static double *ws_buf[WS_COUNT];
static size_t ws_len[WS_COUNT];

static double *workspace(int slot, size_t n) {
  if (n > ws_len[slot]) {
    free(ws_buf[slot]);
    ws_buf[slot] = malloc(n * sizeof(double));
    ws_len[slot] = ws_buf[slot] ? n : 0;
    if (!ws_buf[slot])
      abort();
  }
  return ws_buf[slot];
}

/* ---- halo2d -------------------------------------------------------------- */

/* The primal's step is linear in u but the gradient with respect to kappa
 * needs every u^t: the forward sweep writes step t + 1 straight into plane
 * t + 1 of a trajectory of nsteps + 1 fields (ghosts included; the ghost
 * frame of each field is zeroed before its step, so that the ghosts at the
 * physical boundary are 0), which is the state.  The
 * reverse step, with lam the adjoint of u^{t+1} (zero on the ghost frame):
 *
 *   w_c      = r kappa_c lam_c                          (interior, else 0)
 *   kappa_b_c += r lam_c lap(u^t)_c
 *   lamn_c   = lam_c - 4 w_c + w_N + w_S + w_W + w_E    (gather, interior)
 *
 * and the adjoint of the ghost that the neighbour sent is w on my edge next
 * to it: my first row of w goes north (where it is added to the last row),
 * and so on, the same 4 messages as the primal's step. */
double halo2d_hand_b(const double *kappa, double *kappa_b, const double *u0,
                     const double *uobs, int nx, int ny, int nsteps, double r,
                     int north, int south, int west, int east, MPI_Comm comm,
                     double J_bar) {
  const int ys = ny + 2;
  const size_t P = (size_t)(nx + 2) * (size_t)ys;
  double *traj = workspace(WS_HALO2D_TRAJ, (size_t)(nsteps + 1) * P);
  double *lam = calloc(P, sizeof *lam), *lamn = calloc(P, sizeof *lamn);
  double *w = calloc(P, sizeof *w);
  /* west/east: send, receive (packed columns); north/south rows: receive */
  double *sw = malloc((size_t)nx * sizeof *sw), *se = malloc((size_t)nx * sizeof *se);
  double *rw = calloc((size_t)nx, sizeof *rw), *re = calloc((size_t)nx, sizeof *re);
  double *rn = malloc((size_t)ny * sizeof *rn), *rs = malloc((size_t)ny * sizeof *rs);
  stencil_hand_state_bytes = (size_t)(nsteps + 1) * P * sizeof *traj;

  for (int i = 1; i <= nx; i++)
    memcpy(&traj[i * ys + 1], &u0[(size_t)(i - 1) * ny], (size_t)ny * sizeof *traj);

  MPI_Request reqs[8];
  for (int t = 0; t < nsteps; t++) {
    double *u = traj + (size_t)t * P, *un = u + P;
    memset(u, 0, (size_t)ys * sizeof *u); /* the ghost frame */
    memset(&u[(nx + 1) * ys], 0, (size_t)ys * sizeof *u);
    for (int i = 1; i <= nx; i++)
      u[i * ys] = u[i * ys + ny + 1] = 0.0;
    MPI_Irecv(&u[1], ny, MPI_DOUBLE, north, 1, comm, &reqs[0]);
    MPI_Irecv(&u[(nx + 1) * ys + 1], ny, MPI_DOUBLE, south, 0, comm, &reqs[1]);
    MPI_Irecv(rw, nx, MPI_DOUBLE, west, 3, comm, &reqs[2]);
    MPI_Irecv(re, nx, MPI_DOUBLE, east, 2, comm, &reqs[3]);
    for (int i = 1; i <= nx; i++) {
      sw[i - 1] = u[i * ys + 1];
      se[i - 1] = u[i * ys + ny];
    }
    MPI_Isend(&u[ys + 1], ny, MPI_DOUBLE, north, 0, comm, &reqs[4]);
    MPI_Isend(&u[nx * ys + 1], ny, MPI_DOUBLE, south, 1, comm, &reqs[5]);
    MPI_Isend(sw, nx, MPI_DOUBLE, west, 2, comm, &reqs[6]);
    MPI_Isend(se, nx, MPI_DOUBLE, east, 3, comm, &reqs[7]);
    for (int i = 2; i < nx; i++) {
      const double *k = &kappa[(size_t)(i - 1) * ny];
      for (int j = 2; j < ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * k[j - 1] * (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] - 4.0 * u[c]);
      }
    }
    MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= nx; i++) {
      u[i * ys] = rw[i - 1];
      u[i * ys + ny + 1] = re[i - 1];
    }
    /* the ring: rows 1 and nx whole, then columns 1 and ny */
    for (int i = 1; i <= nx; i += (nx > 1 ? nx - 1 : 1)) {
      const double *k = &kappa[(size_t)(i - 1) * ny];
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        un[c] = u[c] + r * k[j - 1] * (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] - 4.0 * u[c]);
      }
    }
    for (int i = 2; i < nx; i++)
      for (int j = 1; j <= ny; j += (ny > 1 ? ny - 1 : 1)) {
        int c = i * ys + j;
        un[c] = u[c] + r * kappa[(size_t)(i - 1) * ny + j - 1] *
                           (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] - 4.0 * u[c]);
      }
  }

  const double *uT = traj + (size_t)nsteps * P;
  double local = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = uT[i * ys + j] - uobs[(size_t)(i - 1) * ny + j - 1];
      local += d * d;
      lam[i * ys + j] = 2.0 * J_bar * d; /* J replicated: J_b = J_bar here */
    }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);

  for (int t = nsteps - 1; t >= 0; t--) {
    const double *u = traj + (size_t)t * P;
    for (int i = 1; i <= nx; i++) {
      const double *k = &kappa[(size_t)(i - 1) * ny];
      double *kb = &kappa_b[(size_t)(i - 1) * ny];
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        double l = r * lam[c];
        kb[j - 1] += l * (u[c - ys] + u[c + ys] + u[c - 1] + u[c + 1] - 4.0 * u[c]);
        w[c] = k[j - 1] * l;
      }
    }
    MPI_Irecv(rn, ny, MPI_DOUBLE, north, 5, comm, &reqs[0]);
    MPI_Irecv(rs, ny, MPI_DOUBLE, south, 4, comm, &reqs[1]);
    MPI_Irecv(rw, nx, MPI_DOUBLE, west, 7, comm, &reqs[2]);
    MPI_Irecv(re, nx, MPI_DOUBLE, east, 6, comm, &reqs[3]);
    for (int i = 1; i <= nx; i++) {
      sw[i - 1] = w[i * ys + 1];
      se[i - 1] = w[i * ys + ny];
    }
    /* my north ghost's adjoint is w on row 1: it goes north, and so on */
    MPI_Isend(&w[ys + 1], ny, MPI_DOUBLE, north, 4, comm, &reqs[4]);
    MPI_Isend(&w[nx * ys + 1], ny, MPI_DOUBLE, south, 5, comm, &reqs[5]);
    MPI_Isend(sw, nx, MPI_DOUBLE, west, 6, comm, &reqs[6]);
    MPI_Isend(se, nx, MPI_DOUBLE, east, 7, comm, &reqs[7]);
    for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++) {
        int c = i * ys + j;
        lamn[c] = lam[c] - 4.0 * w[c] + w[c - ys] + w[c + ys] + w[c - 1] + w[c + 1];
      }
    MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
    if (north != MPI_PROC_NULL)
      for (int j = 1; j <= ny; j++)
        lamn[ys + j] += rn[j - 1];
    if (south != MPI_PROC_NULL)
      for (int j = 1; j <= ny; j++)
        lamn[nx * ys + j] += rs[j - 1];
    if (west != MPI_PROC_NULL)
      for (int i = 1; i <= nx; i++)
        lamn[i * ys + 1] += rw[i - 1];
    if (east != MPI_PROC_NULL)
      for (int i = 1; i <= nx; i++)
        lamn[i * ys + ny] += re[i - 1];
    double *tmp = lam;
    lam = lamn;
    lamn = tmp;
  }

  free(rs);
  free(rn);
  free(re);
  free(rw);
  free(se);
  free(sw);
  free(w);
  free(lamn);
  free(lam);
  return J;
}

/* ---- stencil_norm (star stencil of radius 2) ----------------------------- */

/* Local coordinates: a = i - istart in [-R, W + R), b = j - jstart in
 * [-R, H + R); the field has a halo of R = 2 on each side. */
enum { R = 2 };
#define X(f, a, b) (f)[(a) + R + ((b) + R) * S]

typedef struct {
  int a0, a1, b0, b1; /* a in [a0, a1), b in [b0, b1) */
} strip;

/* Strips are packed b outer, a inner: the primal's order. */
static void strip_pack(double *buf, const double *f, int S, strip s) {
  int k = 0;
  for (int b = s.b0; b < s.b1; b++)
    for (int a = s.a0; a < s.a1; a++)
      buf[k++] = X(f, a, b);
}

static void strip_unpack(double *f, const double *buf, int S, strip s) {
  int k = 0;
  for (int b = s.b0; b < s.b1; b++)
    for (int a = s.a0; a < s.a1; a++)
      X(f, a, b) = buf[k++];
}

static void strip_add(double *f, const double *buf, int S, strip s) {
  int k = 0;
  for (int b = s.b0; b < s.b1; b++)
    for (int a = s.a0; a < s.a1; a++)
      X(f, a, b) += buf[k++];
}

/* Ghost adjoint out (packed, then zeroed: the receive overwrote the ghost). */
static void strip_take(double *buf, double *f, int S, strip s) {
  int k = 0;
  for (int b = s.b0; b < s.b1; b++)
    for (int a = s.a0; a < s.a1; a++) {
      buf[k++] = X(f, a, b);
      X(f, a, b) = 0.0;
    }
}

/* The four neighbours: top (b grows), bottom, right (a grows), left. */
typedef struct {
  int rank[4], tag_fwd_send[4], tag_fwd_recv[4];
  strip ghost[4], edge[4]; /* the ghost it fills, the owned edge it reads */
  double *out[4], *in[4];
} halo;

/* The primal's 8 messages of one iteration, posted at once: the i-direction
 * messages carry owned columns only (not the j ghosts), so the primal's two
 * phases are independent. */
static void halo_exchange(double *f, int S, halo *h, MPI_Comm comm) {
  MPI_Request req[8];
  int nr = 0;
  for (int d = 0; d < 4; d++) {
    if (h->rank[d] == MPI_PROC_NULL)
      continue;
    strip s = h->edge[d];
    int cnt = (s.a1 - s.a0) * (s.b1 - s.b0);
    MPI_Irecv(h->in[d], cnt, MPI_DOUBLE, h->rank[d], h->tag_fwd_recv[d], comm, &req[nr++]);
    strip_pack(h->out[d], f, S, s);
    MPI_Isend(h->out[d], cnt, MPI_DOUBLE, h->rank[d], h->tag_fwd_send[d], comm, &req[nr++]);
  }
  MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
  for (int d = 0; d < 4; d++)
    if (h->rank[d] != MPI_PROC_NULL)
      strip_unpack(f, h->in[d], S, h->ghost[d]);
}

/* Its adjoint: each ghost's adjoint goes back to the owner of the point and
 * is added to its edge; the same 8 messages, the other way round. */
static void halo_exchange_b(double *f_b, int S, halo *h, MPI_Comm comm) {
  MPI_Request req[8];
  int nr = 0;
  for (int d = 0; d < 4; d++) {
    if (h->rank[d] == MPI_PROC_NULL)
      continue;
    strip s = h->ghost[d];
    int cnt = (s.a1 - s.a0) * (s.b1 - s.b0);
    /* my ghost d's adjoint travels with the tag of my forward send to d */
    MPI_Irecv(h->in[d], cnt, MPI_DOUBLE, h->rank[d], h->tag_fwd_recv[d] + 1, comm, &req[nr++]);
    strip_take(h->out[d], f_b, S, s);
    MPI_Isend(h->out[d], cnt, MPI_DOUBLE, h->rank[d], h->tag_fwd_send[d] + 1, comm, &req[nr++]);
  }
  MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
  for (int d = 0; d < 4; d++)
    if (h->rank[d] != MPI_PROC_NULL)
      strip_add(f_b, h->in[d], S, h->edge[d]);
}

/* The forward sweep is the primal with the stencil written out (weights
 * +-1/4 at distance 1, +-1/8 at distance 2, 0 at the centre) and the field
 * before each nonlinear touch x += 0.1 sin(x) kept: the state, W H doubles
 * per iteration.  The stencil is linear and out only accumulates, so out's
 * adjoint o = 2 norm_bar out_final is the same in every iteration, and so is
 * the stencil's transpose applied to it, G: computed once.  A reverse
 * iteration is then in_b = in_b (1 + 0.1 cos x) + G on the owned points,
 * in_b += G on the ghosts, and the halo exchange reversed.  Assumes tiles of
 * at least RADIUS points in each direction (the primal then reads no ghost
 * while packing). */
double stencil_norm_hand_b(double *in, double *in_b, double *out, int n,
                           int iterations, int istart, int iend, int jstart,
                           int jend, int my_IDx, int my_IDy, int Num_procsx,
                           int Num_procsy, MPI_Comm comm, double norm_bar) {
  const int W = iend - istart + 1, H = jend - jstart + 1, S = W + 2 * R;
  const size_t WH = (size_t)W * H, padded = (size_t)S * (H + 2 * R);
  const int my_ID = my_IDy * Num_procsx + my_IDx;
  const double w1 = 1.0 / (2.0 * 1 * R), w2 = 1.0 / (2.0 * 2 * R);
  /* the stencil's points: a in [a0, a1], b in [b0, b1] */
  const int a0 = (istart > R ? istart : R) - istart;
  const int a1 = (n - R - 1 < iend ? n - R - 1 : iend) - istart;
  const int b0 = (jstart > R ? jstart : R) - jstart;
  const int b1 = (n - R - 1 < jend ? n - R - 1 : jend) - jstart;

  halo h = {
      {my_IDy < Num_procsy - 1 ? my_ID + Num_procsx : MPI_PROC_NULL,
       my_IDy > 0 ? my_ID - Num_procsx : MPI_PROC_NULL,
       my_IDx < Num_procsx - 1 ? my_ID + 1 : MPI_PROC_NULL,
       my_IDx > 0 ? my_ID - 1 : MPI_PROC_NULL},
      {99, 101, 990, 1010},
      {101, 99, 1010, 990},
      {{0, W, H, H + R}, {0, W, -R, 0}, {W, W + R, 0, H}, {-R, 0, 0, H}},
      {{0, W, H - R, H}, {0, W, 0, R}, {W - R, W, 0, H}, {0, R, 0, H}},
      {0},
      {0}};
  double *bufs = malloc((size_t)4 * R * (W + H) * 2 * sizeof *bufs), *p = bufs;
  for (int d = 0; d < 4; d++) {
    size_t cnt = (size_t)R * (d < 2 ? W : H);
    h.out[d] = p;
    h.in[d] = p + cnt;
    p += 2 * cnt;
  }
  double *save = workspace(WS_STAR_SAVE, (size_t)(iterations + 1) * WH);
  stencil_hand_state_bytes = (size_t)(iterations + 1) * WH * sizeof *save;

  for (int it = 0; it <= iterations; it++) {
    halo_exchange(in, S, &h, comm);
    for (int b = b0; b <= b1; b++) {
      double *o = &out[(size_t)b * W];
      for (int a = a0; a <= a1; a++)
        o[a] += w1 * (X(in, a, b + 1) - X(in, a, b - 1) + X(in, a + 1, b) - X(in, a - 1, b)) +
                w2 * (X(in, a, b + 2) - X(in, a, b - 2) + X(in, a + 2, b) - X(in, a - 2, b));
    }
    double *sv = save + (size_t)it * WH;
    for (int b = 0; b < H; b++)
      for (int a = 0; a < W; a++) {
        double x = X(in, a, b);
        sv[(size_t)b * W + a] = x;
        X(in, a, b) = x + 0.1 * sin(x);
      }
  }
  double local = 0.0;
  for (int b = b0; b <= b1; b++)
    for (int a = a0; a <= a1; a++)
      local += out[(size_t)b * W + a] * out[(size_t)b * W + a];
  double norm = 0.0;
  MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, comm);

  /* G = (the stencil)^T o, o = 2 norm_bar out on the stencil's points */
  double *G = calloc(padded, sizeof *G);
  for (int b = b0; b <= b1; b++)
    for (int a = a0; a <= a1; a++) {
      double o = 2.0 * norm_bar * out[(size_t)b * W + a];
      X(G, a, b + 1) += w1 * o;
      X(G, a, b - 1) -= w1 * o;
      X(G, a + 1, b) += w1 * o;
      X(G, a - 1, b) -= w1 * o;
      X(G, a, b + 2) += w2 * o;
      X(G, a, b - 2) -= w2 * o;
      X(G, a + 2, b) += w2 * o;
      X(G, a - 2, b) -= w2 * o;
    }
  for (int it = iterations; it >= 0; it--) {
    const double *sv = save + (size_t)it * WH;
    for (int b = 0; b < H; b++)
      for (int a = 0; a < W; a++)
        X(in_b, a, b) = X(in_b, a, b) * (1.0 + 0.1 * cos(sv[(size_t)b * W + a])) + X(G, a, b);
    for (int d = 0; d < 4; d++) {
      strip s = h.ghost[d];
      for (int b = s.b0; b < s.b1; b++)
        for (int a = s.a0; a < s.a1; a++)
          X(in_b, a, b) += X(G, a, b);
    }
    halo_exchange_b(in_b, S, &h, comm);
  }
  free(G);
  free(bufs);
  return norm;
}
#undef X

/* ---- heat3d -------------------------------------------------------------- */

/* The step is linear in u: the reverse sweep needs only u_T (for J), so the
 * forward sweep swaps two buffers and keeps nothing.  The transposed step,
 * with lam the adjoint of u^{t+1} (zero on the frame and the ghost planes):
 *
 *   lamn_c = (1 - 6 nu) lam_c + nu (sum of lam at the 6 neighbours)
 *
 * on the owned points, and the adjoint of a ghost plane is nu times lam on
 * the owned plane next to it: my first plane goes down (added to the last
 * plane there), my last plane up: the primal's two Sendrecvs reversed. */
double heat3d_hand_b(const double *u0, double *u0_b, int nx, int ny, int nz,
                     int T, double nu, int down, int up, MPI_Comm comm,
                     double J_bar) {
  const int sx = nx + 2, sp = (ny + 2) * (nx + 2);
  const size_t len = (size_t)(nz + 2) * sp;
  double *u = calloc(len, sizeof *u), *un = calloc(len, sizeof *un);
  double *buf = malloc((size_t)sp * sizeof *buf);
  stencil_hand_state_bytes = 0; /* u_T lives in the forward buffers */
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      memcpy(&u[(size_t)k * sp + j * sx + 1], &u0[((size_t)(k - 1) * ny + (j - 1)) * nx],
             (size_t)nx * sizeof *u);

  for (int t = 0; t < T; t++) {
    MPI_Sendrecv(&u[(size_t)nz * sp], sp, MPI_DOUBLE, up, 0, &u[0], sp, MPI_DOUBLE, down, 0,
                 comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[sp], sp, MPI_DOUBLE, down, 1, &u[(size_t)(nz + 1) * sp], sp, MPI_DOUBLE,
                 up, 1, comm, MPI_STATUS_IGNORE);
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++) {
        const double *v = &u[(size_t)k * sp + j * sx];
        double *vn = &un[(size_t)k * sp + j * sx];
        for (int i = 1; i <= nx; i++)
          vn[i] = v[i] + nu * (v[i - 1] + v[i + 1] + v[i - sx] + v[i + sx] + v[i - sp] +
                               v[i + sp] - 6.0 * v[i]);
      }
    double *tmp = u;
    u = un;
    un = tmp;
  }

  /* u_T is in u; un becomes the second adjoint buffer.  Their ghost planes
   * and frames must be 0 in the reverse sweep. */
  double local = 0.0;
  double *lam = un, *lamn = u;
  memset(lam, 0, len * sizeof *lam);
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++) {
        size_t c = (size_t)k * sp + j * sx + i;
        local += u[c] * u[c];
        lam[c] = 2.0 * J_bar * u[c];
      }
  double J = 0.0;
  MPI_Allreduce(&local, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  memset(lamn, 0, len * sizeof *lamn);

  const double diag = 1.0 - 6.0 * nu;
  for (int t = T - 1; t >= 0; t--) {
    for (int k = 1; k <= nz; k++)
      for (int j = 1; j <= ny; j++) {
        const double *l = &lam[(size_t)k * sp + j * sx];
        double *ln = &lamn[(size_t)k * sp + j * sx];
        for (int i = 1; i <= nx; i++)
          ln[i] = diag * l[i] +
                  nu * (l[i - 1] + l[i + 1] + l[i - sx] + l[i + sx] + l[i - sp] + l[i + sp]);
      }
    /* the second Sendrecv reversed first: plane 1's adjoint share goes
     * down, the upper rank's comes back onto plane nz; then the first. */
    MPI_Sendrecv(&lam[sp], sp, MPI_DOUBLE, down, 3, buf, sp, MPI_DOUBLE, up, 3, comm,
                 MPI_STATUS_IGNORE);
    if (up != MPI_PROC_NULL)
      for (int c = 0; c < sp; c++)
        lamn[(size_t)nz * sp + c] += nu * buf[c];
    MPI_Sendrecv(&lam[(size_t)nz * sp], sp, MPI_DOUBLE, up, 2, buf, sp, MPI_DOUBLE, down, 2,
                 comm, MPI_STATUS_IGNORE);
    if (down != MPI_PROC_NULL)
      for (int c = 0; c < sp; c++)
        lamn[sp + c] += nu * buf[c];
    double *tmp = lam;
    lam = lamn;
    lamn = tmp;
  }
  for (int k = 1; k <= nz; k++)
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++)
        u0_b[((size_t)(k - 1) * ny + (j - 1)) * nx + (i - 1)] +=
            lam[(size_t)k * sp + j * sx + i];
  free(buf);
  free(un);
  free(u);
  return J;
}
