// State kept in global pointers that init() allocates, as miniWeather keeps
// it (`double *state, *state_tmp, *sendbuf_l, ...` and `hy_dens_cell`,
// read-only; issue 40, found by a tester who did not write mpiad): each
// global pointer the file allocates, with one size of file-scope names,
// gets a file-scope shadow `NAME_b`, allocated by the generated
// `simulate_shadows_new()`; `wrt(state)` names the global, whose gradient
// comes back in `state_b`; the work buffers' shadows are zeroed on entry;
// a NULL shadow is a named error at run time.  The time step passes the
// globals to helpers as miniWeather does (`perform_timestep(state,
// state_tmp, ...)`), exchanges halo cells through global buffers around a
// ring, and `reductions(&mass, &te)` reads the global state.
// Against central differences at 1-4 ranks, and twice in a row; forward
// mode (tangents NAME_d from `simulate_tangents_new()`) against reverse.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: not %mpirun 1 %t null 2>&1 | FileCheck --check-prefix=NOSHADOW %s
// RUN: not %mpirun 1 %t null tangent 2>&1 | FileCheck --check-prefix=NOTANGENT %s
// NOTANGENT: mpiad: simulate_d: the tangent {{[a-z_]+}}_d of the global pointer '{{[a-z_]+}}' is NULL: call simulate_tangents_new() first
// NOSHADOW: mpiad: simulate_b: the shadow {{[a-z_]+}}_b of the global pointer '{{[a-z_]+}}' is NULL: call simulate_shadows_new() first
// RUN: %mpiad-cc --emit-header %s -I%S/../Inputs -o - | FileCheck --check-prefix=HDR %s
// HDR: double simulate_b(int nsteps, double dt, double simulate_bar);
// HDR: extern double *state_b;
// HDR: void simulate_shadows_new(void);
// HDR: void simulate_shadows_free(void);
// HDR: double simulate_d(int nsteps, double dt, double *simulate_dot);
// HDR: extern double *state_d;
// HDR: void simulate_tangents_new(void);
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: {{^}}double *state_b;
// GEN: memset(state_tmp_b, 0, mpiad_bytes_state_tmp_b);
// GEN: mpiad_need_shadow(state_b, "simulate_b", "state", "simulate_shadows_new");
// GEN-NOT: memset(state_b,
// GEN: void simulate_shadows_new(void) {
// GEN: mpiad_bytes_state_b = ((nx + 2 * hs) * sizeof(double));
// GEN-NEXT: state_b = calloc(1, mpiad_bytes_state_b ? mpiad_bytes_state_b : 1);
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const int hs = 1; /* halo cells */
int nx;                  /* cells owned by this rank */
int left_rank, right_rank;
double *state, *state_tmp;         /* nx + 2 hs cells */
double *sendbuf_l, *sendbuf_r;     /* hs cells */
double *recvbuf_l, *recvbuf_r;
double *hy_dens_cell;              /* a fixed profile, read only */

void init(int n, int rank, int size) {
  nx = n;
  left_rank = (rank + size - 1) % size;
  right_rank = (rank + 1) % size;
  state = (double *)malloc((nx + 2 * hs) * sizeof(double));
  state_tmp = (double *)malloc((nx + 2 * hs) * sizeof(double));
  sendbuf_l = (double *)malloc(hs * sizeof(double));
  sendbuf_r = (double *)malloc(hs * sizeof(double));
  recvbuf_l = (double *)malloc(hs * sizeof(double));
  recvbuf_r = (double *)malloc(hs * sizeof(double));
  hy_dens_cell = (double *)malloc((nx + 2 * hs) * sizeof(double));
  for (int i = 0; i < nx + 2 * hs; i++)
    hy_dens_cell[i] = 1.0 + 0.1 * i;
}

void set_halo_values(double *q) {
  for (int s = 0; s < hs; s++) {
    sendbuf_l[s] = q[hs + s];
    sendbuf_r[s] = q[nx + s];
  }
  MPI_Sendrecv(sendbuf_l, hs, MPI_DOUBLE, left_rank, 0, recvbuf_r, hs, MPI_DOUBLE,
               right_rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(sendbuf_r, hs, MPI_DOUBLE, right_rank, 1, recvbuf_l, hs, MPI_DOUBLE,
               left_rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int s = 0; s < hs; s++) {
    q[s] = recvbuf_l[s];
    q[nx + hs + s] = recvbuf_r[s];
  }
}

void perform_timestep(double *q, double *q_tmp, double dt) {
  set_halo_values(q);
  for (int i = hs; i < nx + hs; i++)
    q_tmp[i] = q[i] + dt * hy_dens_cell[i] * (q[i - 1] - 2.0 * q[i] + q[i + 1]) -
               dt * q[i] * q[i];
  for (int i = hs; i < nx + hs; i++)
    q[i] = q_tmp[i];
}

void reductions(double *mass, double *te) {
  *mass = 0;
  *te = 0;
  for (int i = hs; i < nx + hs; i++) {
    *mass += state[i];
    *te += state[i] * state[i] * hy_dens_cell[i];
  }
  double loc[2] = {*mass, *te}, glob[2];
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *mass = glob[0];
  *te = glob[1];
}

#pragma mpiad differentiate wrt(state) output(return, state) varying(state)
#pragma mpiad differentiate forward wrt(state) output(return, state) varying(state)
double simulate(int nsteps, double dt) {
  for (int t = 0; t < nsteps; t++)
    perform_timestep(state, state_tmp, dt);
  double mass, te;
  reductions(&mass, &te);
  return te + 0.5 * mass;
}

/* The shadows and functions the generated code defines, as the header of
 * --emit-header declares them. */
extern double *state_b, *state_tmp_b;
void simulate_shadows_new(void);
void simulate_shadows_free(void);
double simulate_b(int nsteps, double dt, double simulate_bar);
extern double *state_d, *state_tmp_d;
void simulate_tangents_new(void);
void simulate_tangents_free(void);
double simulate_d(int nsteps, double dt, double *simulate_dot);

#define N 5
static double *x0;
static double J(void *ctx) {
  (void)ctx;
  memcpy(state + hs, x0, N * sizeof(double));
  return simulate(4, 0.1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  init(N, hx_rank_g, hx_size_g);
  double x[N], dx[N], xb[N];
  x0 = x;
  hx_rand(x, N, 11, hx_rank_g, 0.2, 1.0);
  hx_rand(dx, N, 12, hx_rank_g, -1.0, 1.0);
  if (argc > 2) { /* no tangents: a named error */
    double dot;
    memcpy(state + hs, x, sizeof x);
    simulate_d(4, 0.1, &dot);
  }
  if (argc > 1) { /* no shadows: a named error */
    memcpy(state + hs, x, sizeof x);
    simulate_b(4, 0.1, 1.0);
  }
  simulate_shadows_new();
  double first[N];
  for (int round = 0; round < 2; round++) {
    memcpy(state + hs, x, sizeof x);
    memset(state_b, 0, (N + 2 * hs) * sizeof(double));
    /* the work buffers' shadows hold leftovers of the last call */
    for (int i = 0; i < N + 2 * hs; i++)
      state_tmp_b[i] = 1e3;
    double v = simulate_b(4, 0.1, 1.0);
    hx_tape("simulate_b");
    hx_check("value", v, J(NULL), 1e-14, 1e-300);
    memcpy(xb, state_b + hs, sizeof xb);
    if (round == 0) {
      memcpy(first, xb, sizeof xb);
      mpiad_input in = {x, dx, N, 0};
      double *xbp[1] = {xb};
      hx_grad("simulate_b", J, NULL, &in, 1, xbp, 1e-6, 1e-7, 1e-10);
    } else {
      double err = 0.0;
      for (int i = 0; i < N; i++)
        err = fmax(err, fabs(xb[i] - first[i]));
      hx_check_each("second call, same gradient", err, 0.0, 1.0, 1e-14);
    }
  }
  /* Forward mode: the direction in state_d, the work buffers' tangents
   * holding leftovers (zeroed on entry), against the adjoint. */
  simulate_tangents_new();
  memcpy(state + hs, x, sizeof x);
  memset(state_d, 0, (N + 2 * hs) * sizeof(double));
  memcpy(state_d + hs, dx, sizeof dx);
  for (int i = 0; i < N + 2 * hs; i++)
    state_tmp_d[i] = 1e3;
  double dot = 0.0;
  double v = simulate_d(4, 0.1, &dot);
  hx_check("simulate_d value", v, J(NULL), 1e-14, 1e-300);
  mpiad_input in = {x, dx, N, 0};
  double *xbp[1] = {first};
  hx_check("forward vs reverse mode", dot,
           mpiad_adjoint_directional(&in, xbp, 1, MPI_COMM_WORLD), 1e-12, 1e-300);
  simulate_tangents_free();
  simulate_shadows_free();
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
