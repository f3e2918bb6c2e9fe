/*
 * handwritten.c - adjoints of the benchmark kernels written by hand, the way
 * an expert would: same signatures and semantics as the generated ones
 * (value returned, gradients accumulated with +=, global semantics), with
 * every trick the problem allows (fused passes, no tape, one collective).
 * bench_main.c checks each against central finite differences before timing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* (a) Bilinear: the gradient needs no forward value, so value and gradient
 * come from one pass over the data.  J is replicated (the Allreduce result)
 * and x, y vary: the adjoint of Allreduce SUM (varying -> replicated) is a
 * local copy of the seed, no communication. */
double dot_hand_b(const double *x, double *x_b, const double *y, double *y_b,
                  int n, MPI_Comm comm, double dot_bar) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * y[i];
    x_b[i] += dot_bar * y[i];
    y_b[i] += dot_bar * x[i];
  }
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);
  return J;
}

/* (b) The stencil is linear, so the reverse sweep needs only the final field
 * (for the u^2 term): forward with two buffers swapped instead of copied
 * back, then T applications of the transposed stencil.
 *
 * Forward: v[0] = u[0], v[n-1] = u[n-1],
 *          v[i] = (1-2nu) u[i] + nu (u[i-1] + u[i+1]) for 0 < i < n-1.
 * Transpose (for n >= 4): with g the adjoint of v,
 *   u_b[0]   = g[0] + nu g[1]
 *   u_b[1]   = (1-2nu) g[1] + nu g[2]
 *   u_b[i]   = (1-2nu) g[i] + nu (g[i-1] + g[i+1])   for 2 <= i <= n-3
 *   u_b[n-2] = (1-2nu) g[n-2] + nu g[n-3]
 *   u_b[n-1] = g[n-1] + nu g[n-2]                                       */
double diffusion_hand_b(const double *u0, double *u0_b, int n, int T, double nu,
                        MPI_Comm comm, double diffusion_bar) {
  double *u = malloc((size_t)n * sizeof *u);
  double *v = malloc((size_t)n * sizeof *v);
  memcpy(u, u0, (size_t)n * sizeof *u);
  for (int t = 0; t < T; t++) {
    v[0] = u[0];
    v[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  double J = 0.0;
  MPI_Allreduce(&s, &J, 1, MPI_DOUBLE, MPI_SUM, comm);

  /* Reverse.  J replicated, s varying: s_b = diffusion_bar locally. */
  double *g = u; /* g = d J / d u_T, in place */
  for (int i = 0; i < n; i++)
    g[i] = 2.0 * diffusion_bar * u[i];
  const double c = 1.0 - 2.0 * nu;
  for (int t = 0; t < T; t++) {
    if (n >= 4) {
      v[0] = g[0] + nu * g[1];
      v[1] = c * g[1] + nu * g[2];
      for (int i = 2; i < n - 2; i++)
        v[i] = c * g[i] + nu * (g[i - 1] + g[i + 1]);
      v[n - 2] = c * g[n - 2] + nu * g[n - 3];
      v[n - 1] = g[n - 1] + nu * g[n - 2];
    } else { /* n <= 3: at most one interior point */
      for (int i = 0; i < n; i++)
        v[i] = g[i];
      if (n == 3) {
        v[1] = c * g[1];
        v[0] += nu * g[1];
        v[2] += nu * g[1];
      }
    }
    double *tmp = g;
    g = v;
    v = tmp;
  }
  for (int i = 0; i < n; i++)
    u0_b[i] += g[i];
  free(g);
  free(v);
  return J;
}

/* (c) One pass over the samples computes the loss terms and the gradient
 * partial sums together (dl/dz = -y sigmoid(m)); one Allreduce carries the
 * local loss sum, the sample count and the d+1 partial gradients.  w and b
 * are replicated: their adjoint is the sum over ranks of the partials, which
 * is exactly what the Allreduce computes, so every rank gets dJ/dw. */
double loss_hand_b(const double *w, double *w_b, double b, double *b_b,
                   const double *X, const double *y, int n, int d,
                   double lambda, MPI_Comm comm, double loss_bar) {
  double *buf = calloc((size_t)d + 3, sizeof *buf);
  double local = 0.0, gb = 0.0;
  double *gw = buf + 3;
  for (int i = 0; i < n; i++) {
    const double *x = X + (size_t)i * d;
    double z = b;
    for (int j = 0; j < d; j++)
      z += w[j] * x[j];
    double m = -y[i] * z, dm; /* dm = d log(1+exp(m)) / dm = sigmoid(m) */
    if (m > 0.0) {
      double e = exp(-m);
      local += m + log(1.0 + e);
      dm = 1.0 / (1.0 + e);
    } else {
      double e = exp(m);
      local += log(1.0 + e);
      dm = e / (1.0 + e);
    }
    double dz = -y[i] * dm;
    gb += dz;
    for (int j = 0; j < d; j++)
      gw[j] += dz * x[j];
  }
  buf[0] = local;
  buf[1] = n;
  buf[2] = gb;
  MPI_Allreduce(MPI_IN_PLACE, buf, d + 3, MPI_DOUBLE, MPI_SUM, comm);
  const double N = buf[1], scale = loss_bar / N;
  double reg = 0.0;
  for (int j = 0; j < d; j++) {
    reg += w[j] * w[j];
    w_b[j] += scale * gw[j] + loss_bar * lambda * w[j];
  }
  *b_b += scale * buf[2];
  double J = buf[0] / N + 0.5 * lambda * reg;
  free(buf);
  return J;
}
