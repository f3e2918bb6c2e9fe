/* Gradient check of odd_even_sort.c: J = sum over the global sorted list
 * of w_k times its k-th key, whose gradient with respect to the keys is
 * the permutation: dJ/dx_i = w at the sorted position of x_i.  Checked
 * against that permutation, computed here serially from all the keys
 * (every rank draws all of them), and against central differences of the
 * primal; the sorted values against the serial sort.  3 and 5 keys per
 * process, distinct keys. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void Sort(double local_A[], int local_n, int my_rank, int p, MPI_Comm comm);
void Sort_b(double local_A[], double local_A_b[], int local_n, int my_rank,
            int p, MPI_Comm comm);

#define NMAX 64

typedef struct {
  double *x, *w;
  int n, rank, p;
} ctx_t;

/* J(x): sort a copy of x, weigh the sorted keys, sum over the ranks */
static double J(void *q) {
  ctx_t *c = q;
  double a[NMAX], s = 0.0;
  memcpy(a, c->x, (size_t)c->n * sizeof *a);
  Sort(a, c->n, c->rank, c->p, MPI_COMM_WORLD);
  for (int k = 0; k < c->n; k++)
    s += c->w[k] * a[k];
  return hx_sum(s);
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, p = hx_size_g;
  for (int n = 3; n <= 5; n += 2) {
    int N = n * p;
    double all[NMAX * 4], wall[NMAX * 4], dall[NMAX * 4];
    hx_rand(all, (size_t)N, 40 + n, HX_REP, -1.0, 1.0);
    hx_rand(wall, (size_t)N, 50 + n, HX_REP, 0.5, 1.5);
    hx_rand(dall, (size_t)N, 60 + n, HX_REP, -1.0, 1.0);
    /* the sorted order of all the keys, serially */
    int order[NMAX * 4];
    for (int i = 0; i < N; i++)
      order[i] = i;
    for (int i = 1; i < N; i++)
      for (int j = i; j > 0 && all[order[j - 1]] > all[order[j]]; j--) {
        int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    double x[NMAX], xb[NMAX], a[NMAX];
    ctx_t c = {x, wall + r * n, n, r, p};
    memcpy(x, all + r * n, (size_t)n * sizeof *x);
    memcpy(a, x, sizeof a);
    Sort(a, n, r, p, MPI_COMM_WORLD);
    double want[NMAX];
    for (int k = 0; k < n; k++)
      want[k] = all[order[r * n + k]];
    char label[64];
    snprintf(label, sizeof label, "sorted keys, %d per process", n);
    hx_check_vec(label, a, want, (size_t)n, 0.0, 0.0);
    /* the adjoint: the seed of the sorted keys in, the keys' adjoint out */
    for (int k = 0; k < n; k++)
      xb[k] = c.w[k];
    memcpy(a, x, sizeof a);
    Sort_b(a, xb, n, r, p, MPI_COMM_WORLD);
    hx_tape(label);
    double g[NMAX * 4], gwant[NMAX];
    for (int k = 0; k < N; k++)
      g[order[k]] = wall[k];
    for (int i = 0; i < n; i++)
      gwant[i] = g[r * n + i];
    snprintf(label, sizeof label, "dJ/dx is the permutation, %d per process", n);
    hx_check_vec(label, xb, gwant, (size_t)n, 1e-15, 1e-300);
    mpiad_input in = {x, dall + r * n, (size_t)n, 0};
    double *xbp[1] = {xb};
    snprintf(label, sizeof label, "dJ/dx, %d per process", n);
    hx_grad(label, J, &c, &in, 1, xbp, 1e-6, 1e-7, 1e-12);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
