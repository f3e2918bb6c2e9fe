// Checkpointed loops over buffers held as pointers to rows (`double
// (*u)[NY] = malloc(...)`, calloc, a pointer to planes, and such a
// parameter with its length in the pragma): the snapshot saved sizeof(u),
// the pointer's 8 bytes, so re-run steps started from the wrong field, a
// wrong gradient silently.  It now saves the rows the pointer points to.
// Each checkpointed function is compared with the same function without the
// pragma (store-all), for step counts that make the schedule re-run steps,
// and against central differences, at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double rows_ck_b(
// GEN-NOT: sizeof(u)
// GEN: mpiad_ckpt_
// GEN-NOT: sizeof(u)
// GEN: double planes_ck_b(
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define NX 4
#define NY 3
#define NZ 2

/* One smoothing step of a field on NX x NY, summed over ranks at the end. */
#define STEP_BODY                                                            \
  for (int i = 0; i < NX; i++)                                               \
    for (int j = 0; j < NY; j++)                                             \
      v[i][j] = u[i][j] + 0.2 * sin(u[(i + 1) % NX][j]) * u[i][(j + 2) % NY];\
  for (int i = 0; i < NX; i++)                                               \
    for (int j = 0; j < NY; j++)                                             \
      u[i][j] = v[i][j];

#pragma mpiad differentiate wrt(x) varying(x)
double rows_all(const double *x, int nsteps, MPI_Comm comm) {
  double (*u)[NY] = malloc(NX * sizeof *u);
  double (*v)[NY] = calloc(NX, sizeof(double[NY]));
  double s = 0.0, t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      u[i][j] = x[i * NY + j];
  for (int k = 0; k < nsteps; k++) {
    STEP_BODY
  }
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      s += u[i][j] * u[i][j];
  free(u);
  free(v);
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

#pragma mpiad differentiate wrt(x) varying(x)
double rows_ck(const double *x, int nsteps, MPI_Comm comm) {
  double (*u)[NY] = malloc(NX * sizeof *u);
  double (*v)[NY] = calloc(NX, sizeof(double[NY]));
  double s = 0.0, t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      u[i][j] = x[i * NY + j];
#pragma mpiad checkpoint(snapshots=2)
  for (int k = 0; k < nsteps; k++) {
    STEP_BODY
  }
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      s += u[i][j] * u[i][j];
  free(u);
  free(v);
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

/* A pointer to planes, and a parameter pointer to rows whose length (in
 * rows) the pragma gives. */
#pragma mpiad differentiate wrt(x) varying(x) scratch(w[NX])
double planes_ck(const double *x, double (*w)[NY], int nsteps, MPI_Comm comm) {
  double (*p)[NY][NZ] = malloc(NX * sizeof *p);
  double s = 0.0, t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      p[i][j][0] = x[i * NY + j];
      p[i][j][1] = 0.5 * x[i * NY + j];
      w[i][j] = 0.0;
    }
#pragma mpiad checkpoint(snapshots=2)
  for (int k = 0; k < nsteps; k++) {
    for (int i = 0; i < NX; i++)
      for (int j = 0; j < NY; j++) {
        w[i][j] = w[i][j] * 0.5 + p[i][j][1];
        p[i][j][1] = p[i][j][0] * cos(w[i][j]);
        p[i][j][0] = p[(i + 1) % NX][j][1] + 0.1 * p[i][j][0];
      }
  }
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      s += p[i][j][0] * w[i][j];
  free(p);
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

/* A local pointer that is a copy of a scratch parameter whose length the
 * pragma gives: the parameter's snapshot covers it (the message called the
 * pointer an index, and ignored the length of the clause). */
#define LEN (NX * NY)
#define SCRATCH_BODY                                                         \
  double *a = sa0;                                                           \
  for (int i = 0; i < LEN; i++)                                              \
    a[i] = x[i];
#define SCRATCH_STEP                                                         \
  for (int i = 0; i < LEN; i++)                                              \
    a[i] = a[i] * 0.5 + x[i] * sin(a[(i + 1) % LEN]);
#define SCRATCH_END                                                          \
  double s = 0.0, t;                                                         \
  for (int i = 0; i < LEN; i++)                                              \
    s += a[i] * a[i];                                                        \
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);                       \
  return t;

#pragma mpiad differentiate wrt(x) varying(x) scratch(sa0[LEN])
double copy_all(const double *x, double *sa0, int nsteps, MPI_Comm comm) {
  SCRATCH_BODY
  for (int k = 0; k < nsteps; k++) {
    SCRATCH_STEP
  }
  SCRATCH_END
}

#pragma mpiad differentiate wrt(x) varying(x) scratch(sa0[LEN])
double copy_ck(const double *x, double *sa0, int nsteps, MPI_Comm comm) {
  SCRATCH_BODY
#pragma mpiad checkpoint(snapshots=2)
  for (int k = 0; k < nsteps; k++) {
    SCRATCH_STEP
  }
  SCRATCH_END
}

static int steps_g;
static double work_g[NX][NY];
static double Jall(void *ctx) { return rows_all(ctx, steps_g, MPI_COMM_WORLD); }
static double Jpl(void *ctx) {
  return planes_ck(ctx, work_g, steps_g, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  enum { M = NX * NY };
  double x[M], dx[M];
  hx_rand(x, M, 71, hx_rank_g, -1.0, 1.0);
  hx_rand(dx, M, 72, hx_rank_g, -1.0, 1.0);
  const int steps[] = {1, 5, 9};
  for (int c = 0; c < 3; c++) {
    steps_g = steps[c];
    double ga[M] = {0}, gc[M] = {0}, gp[M] = {0};
    char buf[96];
    double Ja = rows_all_b(x, ga, steps_g, MPI_COMM_WORLD, 1.0);
    double Jc = rows_ck_b(x, gc, steps_g, MPI_COMM_WORLD, 1.0);
    hx_tape("rows_ck_b");
    snprintf(buf, sizeof buf, "%d steps: checkpointed value", steps_g);
    hx_check(buf, Jc, Ja, 1e-14, 1e-300);
    snprintf(buf, sizeof buf, "%d steps: checkpointed vs store-all", steps_g);
    hx_check_vec(buf, gc, ga, M, 1e-12, 1e-13);
    mpiad_input in = {x, dx, M, 0};
    double *gpa[1] = {ga};
    snprintf(buf, sizeof buf, "%d steps: rows", steps_g);
    hx_grad(buf, Jall, x, &in, 1, gpa, 1e-6, 1e-7, 1e-10);
    planes_ck_b(x, gp, work_g, steps_g, MPI_COMM_WORLD, 1.0);
    hx_tape("planes_ck_b");
    double *gpp[1] = {gp};
    snprintf(buf, sizeof buf, "%d steps: planes", steps_g);
    hx_grad(buf, Jpl, x, &in, 1, gpp, 1e-6, 1e-7, 1e-10);
    double sa[M], g1[M] = {0}, g2[M] = {0};
    double J1 = copy_all_b(x, g1, sa, steps_g, MPI_COMM_WORLD, 1.0);
    double J2 = copy_ck_b(x, g2, sa, steps_g, MPI_COMM_WORLD, 1.0);
    hx_tape("copy_ck_b");
    snprintf(buf, sizeof buf, "%d steps: scratch copy, value", steps_g);
    hx_check(buf, J2, J1, 1e-14, 1e-300);
    snprintf(buf, sizeof buf, "%d steps: scratch copy, checkpointed vs store-all",
             steps_g);
    hx_check_vec(buf, g2, g1, M, 1e-12, 1e-13);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
