// Checkpointed loops snapshot their whole loop-carried state: a scalar and
// a fixed array carried from step to step, two malloc'd buffers whose
// pointers are swapped at every step, a pointer parameter updated in place
// (an output: after F_b it holds what F leaves), a loop counting down, a
// checkpointed loop nested in an outer loop and calling a function of the
// file, and one inside a function that the marked function calls.  Each is compared with the same function without the pragma
// (store-all), for several step counts, and against central differences.
// (`v = f(v, c)` with f defined here once lost the adjoint of v in the
// store-all version too: the call's contribution was cleared after it.)
// RUN: %mpiad-cc %s -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include "../Inputs/harness.h"

#include <stdlib.h>

/* A: a scalar and a fixed array carried across steps. */
#pragma mpiad differentiate wrt(x) varying(x)
double carry_all(const double *x, int n, int nsteps) {
  double s = 0.5;
  double a[4];
  for (int k = 0; k < 4; k++)
    a[k] = x[k % n];
  for (int t = 0; t < nsteps; t++) {
    double tmp = sin(a[t % 4]) * s;
    a[(t + 1) % 4] += 0.3 * tmp;
    s = 0.9 * s + 0.1 * cos(a[t % 4]);
  }
  return s + a[0] * a[1] + a[2] - a[3];
}

#pragma mpiad differentiate wrt(x) varying(x)
double carry_ck(const double *x, int n, int nsteps) {
  double s = 0.5;
  double a[4];
  for (int k = 0; k < 4; k++)
    a[k] = x[k % n];
#pragma mpiad checkpoint(snapshots=2)
  for (int t = 0; t < nsteps; t++) {
    double tmp = sin(a[t % 4]) * s;
    a[(t + 1) % 4] += 0.3 * tmp;
    s = 0.9 * s + 0.1 * cos(a[t % 4]);
  }
  return s + a[0] * a[1] + a[2] - a[3];
}

/* B: two heap buffers, pointers swapped at every step. */
#pragma mpiad differentiate wrt(x) varying(x)
double swap_all(const double *x, int n, int nsteps) {
  double *p = malloc((size_t)n * sizeof(double));
  double *q = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    p[i] = x[i];
  for (int t = 0; t < nsteps; t++) {
    for (int i = 0; i < n; i++)
      q[i] = p[i] + 0.1 * sin(p[(i + 1) % n]);
    double *tmp = p;
    p = q;
    q = tmp;
  }
  double J = 0.0;
  for (int i = 0; i < n; i++)
    J += p[i] * p[i];
  free(p);
  free(q);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x)
double swap_ck(const double *x, int n, int nsteps) {
  double *p = malloc((size_t)n * sizeof(double));
  double *q = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    p[i] = x[i];
#pragma mpiad checkpoint(snapshots=3)
  for (int t = 0; t < nsteps; t++) {
    for (int i = 0; i < n; i++)
      q[i] = p[i] + 0.1 * sin(p[(i + 1) % n]);
    double *tmp = p;
    p = q;
    q = tmp;
  }
  double J = 0.0;
  for (int i = 0; i < n; i++)
    J += p[i] * p[i];
  free(p);
  free(q);
  return J;
}

/* C: a parameter updated in place, the loop counting down. */
#pragma mpiad differentiate wrt(u) output(u) varying(u)
void relax_all(double *u, int n, int nsteps) {
  for (int t = nsteps - 1; t >= 0; t--)
    for (int i = 1; i < n - 1; i++)
      u[i] = u[i] + 0.2 * sin(u[i - 1]) * u[i + 1] + 0.01 * t;
}

#pragma mpiad differentiate wrt(u) output(u) varying(u)
void relax_ck(double *u, int n, int nsteps) {
#pragma mpiad checkpoint(snapshots=2)
  for (int t = nsteps - 1; t >= 0; t--)
    for (int i = 1; i < n - 1; i++)
      u[i] = u[i] + 0.2 * sin(u[i - 1]) * u[i + 1] + 0.01 * t;
}

/* D: nested in an outer loop, calling a function of this file. */
static double advance_one(double v, double c) { return v + c * sin(v); }

#pragma mpiad differentiate wrt(x) varying(x)
double nested_all(const double *x, int n, int nouter, int nsteps) {
  double acc = 0.0;
  for (int k = 0; k < nouter; k++) {
    double v = x[k % n];
    for (int t = 0; t < nsteps; t++)
      v = advance_one(v, 0.02 * (t + 1));
    acc += v * v;
  }
  return acc;
}

#pragma mpiad differentiate wrt(x) varying(x)
double nested_ck(const double *x, int n, int nouter, int nsteps) {
  double acc = 0.0;
  for (int k = 0; k < nouter; k++) {
    double v = x[k % n];
#pragma mpiad checkpoint(snapshots=2)
    for (int t = 0; t < nsteps; t++)
      v = advance_one(v, 0.02 * (t + 1));
    acc += v * v;
  }
  return acc;
}

/* E: the checkpointed loop in a function the marked one calls (split
 * into forward and reverse helpers; the schedule travels on the tape). */
static double run_all(const double *x, int n, int nsteps) {
  double *u = malloc((size_t)n * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int t = 0; t < nsteps; t++) {
    for (int i = 1; i < n; i++)
      u[i] = u[i] + 0.1 * sin(u[i - 1]);
    s = s + u[n - 1] * u[0];
  }
  double J = s + u[0];
  free(u);
  return J;
}

static double run_ck(const double *x, int n, int nsteps) {
  double *u = malloc((size_t)n * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++)
    u[i] = x[i];
#pragma mpiad checkpoint(snapshots=3)
  for (int t = 0; t < nsteps; t++) {
    for (int i = 1; i < n; i++)
      u[i] = u[i] + 0.1 * sin(u[i - 1]);
    s = s + u[n - 1] * u[0];
  }
  double J = s + u[0];
  free(u);
  return J;
}

#pragma mpiad differentiate wrt(x) varying(x)
double callee_all(const double *x, int n, int nsteps) {
  double a = run_all(x, n, nsteps);
  return a * a;
}

#pragma mpiad differentiate wrt(x) varying(x)
double callee_ck(const double *x, int n, int nsteps) {
  double a = run_ck(x, n, nsteps);
  return a * a;
}

enum { N = 6 };
static int g_case, g_steps;
static double g_x[N];

/* The objectives for central differences (each rank's own; summed). */
static double J_case(void *unused) {
  (void)unused;
  double v = 0.0, u[N];
  switch (g_case) {
  case 0: v = carry_ck(g_x, N, g_steps); break;
  case 1: v = swap_ck(g_x, N, g_steps); break;
  case 2:
    for (int i = 0; i < N; i++)
      u[i] = g_x[i];
    relax_ck(u, N, g_steps);
    for (int i = 0; i < N; i++)
      v += (i + 1) * u[i];
    break;
  case 3: v = nested_ck(g_x, N, 3, g_steps); break;
  default: v = callee_ck(g_x, N, g_steps);
  }
  double sum = 0.0;
  MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  const char *names[] = {"scalar+array", "swapped buffers", "in place, down",
                         "nested+call", "in a callee"};
  int steps[] = {0, 1, 5, 23};
  char label[160];
  double dx[N];
  hx_rand(dx, N, 9, hx_rank_g, -1.0, 1.0);
  for (int c = 0; c < 5; c++)
    for (int k = 0; k < 4; k++) {
      int n = steps[k];
      hx_rand(g_x, N, 10 + c, hx_rank_g, 0.1, 1.0);
      double ga[N] = {0}, gc[N] = {0}, ua[N], uc[N], uf[N], seed[N];
      double va = 0.0, vc = 0.0;
      for (int i = 0; i < N; i++) {
        ua[i] = uc[i] = uf[i] = g_x[i];
        seed[i] = i + 1;
      }
      switch (c) {
      case 0:
        va = carry_all_b(g_x, ga, N, n, 1.0);
        vc = carry_ck_b(g_x, gc, N, n, 1.0);
        break;
      case 1:
        va = swap_all_b(g_x, ga, N, n, 1.0);
        vc = swap_ck_b(g_x, gc, N, n, 1.0);
        break;
      case 2: {
        double sa[N], sc[N];
        for (int i = 0; i < N; i++)
          sa[i] = sc[i] = seed[i];
        relax_all_b(ua, sa, N, n);
        relax_ck_b(uc, sc, N, n);
        for (int i = 0; i < N; i++) {
          ga[i] = sa[i];
          gc[i] = sc[i];
        }
        relax_ck(uf, N, n);
        snprintf(label, sizeof label, "%s nsteps=%d: u after F_b equals F's",
                 names[c], n);
        hx_check_vec(label, uc, uf, N, 0.0, 1e-300);
        break;
      }
      case 3:
        va = nested_all_b(g_x, ga, N, 3, n, 1.0);
        vc = nested_ck_b(g_x, gc, N, 3, n, 1.0);
        break;
      default:
        va = callee_all_b(g_x, ga, N, n, 1.0);
        vc = callee_ck_b(g_x, gc, N, n, 1.0);
      }
      snprintf(label, sizeof label, "%s nsteps=%d: value", names[c], n);
      hx_check_each(label, vc, va, 1e-14, 1e-300);
      snprintf(label, sizeof label, "%s nsteps=%d: gradient vs store-all",
               names[c], n);
      hx_check_vec(label, gc, ga, N, 1e-12, 1e-14);
      snprintf(label, sizeof label, "%s nsteps=%d", names[c], n);
      hx_tape(label);
      if (n == 23) {
        g_case = c;
        g_steps = n;
        mpiad_input in = {g_x, dx, N, 0};
        double *xb[1] = {gc};
        snprintf(label, sizeof label, "%s nsteps=%d", names[c], n);
        hx_grad(label, J_case, NULL, &in, 1, xb, 1e-6, 1e-6, 1e-10);
      }
    }
  mpiad_ckpt_release();
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
