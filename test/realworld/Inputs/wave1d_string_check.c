/* Gradient check of wave1d_string.c: the string's energy after nsteps steps
 * with respect to its initial amplitude, at the program's own sine
 * amplitude and at a random one, for 1, 5 and 40 steps: the value against a
 * serial computation of the whole string (every rank runs it), the gradient
 * against central differences of the primal, and Euler's identity
 * <dJ/da, a> = 2 J (J is a quadratic form in a: the scheme is linear), and
 * the globals left as the primal leaves them. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define TPOINTS 40

extern int taskid, numtasks, nsteps, npoints, first;
extern double values[TPOINTS + 2];
void init_line(void);
double final_energy(const double *amp, int left, int right);
double final_energy_b(const double *amp, double *amp_b, int left, int right,
                      double final_energy_bar);

static int left_g, right_g;

static double J(void *p) { return final_energy(p, left_g, right_g); }

/* The whole string, serially, as the program steps it. */
static double serial_energy(const double *a, int steps) {
  double v[TPOINTS + 2] = {0}, o[TPOINTS + 2] = {0}, n[TPOINTS + 2] = {0};
  const double sq = 0.3 * 0.3;
  for (int j = 1; j <= TPOINTS; j++)
    v[j] = o[j] = a[j - 1];
  for (int t = 0; t < steps; t++) {
    for (int j = 1; j <= TPOINTS; j++)
      n[j] = j == 1 || j == TPOINTS
                 ? 0.0
                 : 2.0 * v[j] - o[j] + sq * (v[j - 1] - 2.0 * v[j] + v[j + 1]);
    for (int j = 1; j <= TPOINTS; j++) {
      o[j] = v[j];
      v[j] = n[j];
    }
  }
  double e = 0.0;
  for (int j = 1; j <= TPOINTS; j++)
    e += v[j] * v[j];
  return e;
}

int main(void) {
  MPI_Init(NULL, NULL);
  hx_init(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &taskid);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  right_g = taskid == numtasks - 1 ? 0 : taskid + 1;
  left_g = taskid == 0 ? numtasks - 1 : taskid - 1;
  init_line();
  const int steps[] = {1, 5, 40};
  for (int si = 0; si < 3; si++)
    for (int which = 0; which < 2; which++) {
      nsteps = steps[si];
      double all[TPOINTS], dall[TPOINTS];
      if (which == 0)
        for (int j = 0; j < TPOINTS; j++)
          all[j] = sin(2.0 * 3.14159265 * j / (double)(TPOINTS - 1));
      else
        hx_rand(all, TPOINTS, 10 + si, HX_REP, -1.0, 1.0);
      hx_rand(dall, TPOINTS, 20 + si, HX_REP, -1.0, 1.0);
      double *a = all + first - 1, *da = dall + first - 1;
      double ab[TPOINTS] = {0};
      char label[80];
      snprintf(label, sizeof label, "%s amplitude, %d steps",
               which ? "random" : "sine", nsteps);
      double v = final_energy_b(a, ab, left_g, right_g, 1.0);
      double after_b[TPOINTS + 2];
      memcpy(after_b, values, sizeof after_b);
      hx_tape(label);
      double vp = J(a);
      hx_check(label, v, vp, 1e-14, 1e-300);
      hx_check("energy vs the serial string", v, serial_energy(all, nsteps),
               1e-12, 1e-300);
      hx_check_vec("globals as the primal leaves them", after_b, values,
                   (size_t)npoints + 1, 0.0, 0.0);
      mpiad_input in = {a, da, (size_t)npoints, 0};
      double *xb[1] = {ab};
      hx_grad(label, J, a, &in, 1, xb, 1e-6, 1e-7, 1e-10);
      mpiad_input self = {a, a, (size_t)npoints, 0};
      hx_check("Euler: <dJ/da, a> = 2 J",
               mpiad_adjoint_directional(&self, xb, 1, MPI_COMM_WORLD), 2.0 * v,
               1e-12, 1e-300);
    }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
