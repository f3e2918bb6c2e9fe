/* Gradient check of nbody_gather.c: the sum of the squared forces on all
 * bodies, differentiated with respect to the positions and masses of the
 * bodies this rank owns. Central differences of the primal along a random
 * direction, the value F_b returns, the tape, the forces F_b leaves in the
 * bodies, and an independent property: moving every body by the same
 * vector changes no force, so the x (and y) adjoints sum to zero over all
 * bodies of all ranks. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define N 20

struct Body {
  double x, y, m, fx, fy;
};

double forces(struct Body *body0, MPI_Comm comm);
double forces_b(struct Body *body0, struct Body *body0_b, MPI_Comm comm,
                double forces_bar);

static int begin_g, end_g;

/* x holds (x, y, m) of each owned body. */
static void fill(const double *x, struct Body *b) {
  memset(b, 0, N * sizeof *b);
  for (int i = begin_g; i < end_g; i++) {
    b[i].x = x[3 * (i - begin_g)];
    b[i].y = x[3 * (i - begin_g) + 1];
    b[i].m = x[3 * (i - begin_g) + 2];
  }
}

static double J(void *ctx) {
  struct Body b[N];
  fill(ctx, b);
  return forces(b, MPI_COMM_WORLD);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  begin_g = hx_rank_g * (N / hx_size_g);
  end_g = (hx_rank_g + 1) * (N / hx_size_g);
  int nloc = end_g - begin_g;
  double x[3 * N], dx[3 * N], xb[3 * N];
  hx_rand(x, 3 * nloc, 7, hx_rank_g, 0.0, 1.0);
  for (int k = 0; k < nloc; k++)
    x[3 * k + 2] = 0.5 + 0.5 * x[3 * k + 2]; /* masses in [0.5, 1] */
  hx_rand(dx, 3 * nloc, 8, hx_rank_g, -1.0, 1.0);

  struct Body b[N], bb[N], ref[N];
  fill(x, b);
  memset(bb, 0, sizeof bb);
  double v = forces_b(b, bb, MPI_COMM_WORLD, 1.0);
  hx_tape("forces_b");
  hx_check("forces_b returns the sum of squared forces", v, J(x), 1e-14,
           1e-300);
  fill(x, ref);
  forces(ref, MPI_COMM_WORLD);
  double fb[2 * N], fr[2 * N];
  for (int i = begin_g; i < end_g; i++) {
    fb[2 * (i - begin_g)] = b[i].fx;
    fb[2 * (i - begin_g) + 1] = b[i].fy;
    fr[2 * (i - begin_g)] = ref[i].fx;
    fr[2 * (i - begin_g) + 1] = ref[i].fy;
  }
  hx_check_vec("forces_b leaves the forces as forces does", fb, fr, 2 * nloc,
               1e-15, 1e-300);
  for (int i = begin_g; i < end_g; i++) {
    xb[3 * (i - begin_g)] = bb[i].x;
    xb[3 * (i - begin_g) + 1] = bb[i].y;
    xb[3 * (i - begin_g) + 2] = bb[i].m;
  }
  mpiad_input in = {x, dx, (size_t)(3 * nloc), 0};
  double *xbp[1] = {xb};
  hx_grad("d(sum |F|^2)/d(x, y, m)", J, x, &in, 1, xbp, 1e-7, 1e-6, 1e-9);

  double sx = 0.0, sy = 0.0, scale = 0.0;
  for (int k = 0; k < nloc; k++) {
    sx += xb[3 * k];
    sy += xb[3 * k + 1];
    scale += fabs(xb[3 * k]) + fabs(xb[3 * k + 1]);
  }
  /* relative to the size of the terms that cancel */
  hx_check("translation in x changes nothing", hx_sum(sx), 0.0, 1e-12,
           hx_sum(scale));
  hx_check("translation in y changes nothing", hx_sum(sy), 0.0, 1e-12,
           hx_sum(scale));
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
