// MPI_Allreduce with MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN on active double
// buffers (and float for PROD and MAX), in both semantics.  For each operator:
//   mix: the result feeds replicated code (output yr, replicated: counted once)
//        AND rank-varying code (output yv, summed over ranks);
//   rep: the result feeds replicated code only;
//   inp: MPI_IN_PLACE, result used by both kinds of code.
// Checked against central differences of the global objective (the generic
// runner of Inputs/hx_case.h), the dot-product test where the map is linear
// (SUM), and DESIGN.md's PROD example y = (r+2) * Allreduce_PROD((r+2) x) at
// x = 1: x_b = T * Pi on every rank in both semantics, T = sum_r (r+2),
// Pi = prod_r (r+2) (P=2: 30, 30).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "hx_case.h"

#define N 3
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_mix_g_b) semantics(global) varying(x)
void sum_mix_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_mix_pr_b) semantics(per_rank)
void sum_mix_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(sum_rep_g_b) semantics(global) varying(x)
void sum_rep_g(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(sum_rep_pr_b) semantics(per_rank)
void sum_rep_pr(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_inp_g_b) semantics(global) varying(x)
void sum_inp_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_inp_pr_b) semantics(per_rank)
void sum_inp_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_lin_g_b) semantics(global) varying(x)
void sum_lin_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % N];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = 3.0 * s[i];              /* replicated code */
    yv[i] = s[i] * (r + 1) - x[i];   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_lin_pr_b) semantics(per_rank)
void sum_lin_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % N];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = 3.0 * s[i];              /* replicated code */
    yv[i] = s[i] * (r + 1) - x[i];   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_lin_inp_g_b) semantics(global) varying(x)
void sum_lin_inp_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % N];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = 3.0 * s[i];              /* replicated code */
    yv[i] = s[i] * (r + 1) - x[i];   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(sum_lin_inp_pr_b) semantics(per_rank)
void sum_lin_inp_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = 2.0 * x[i] - x[(i + 1) % N];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = 3.0 * s[i];              /* replicated code */
    yv[i] = s[i] * (r + 1) - x[i];   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(prod_mix_g_b) semantics(global) varying(x)
void prod_mix_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(prod_mix_pr_b) semantics(per_rank)
void prod_mix_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(prod_rep_g_b) semantics(global) varying(x)
void prod_rep_g(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(prod_rep_pr_b) semantics(per_rank)
void prod_rep_pr(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(prod_inp_g_b) semantics(global) varying(x)
void prod_inp_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(prod_inp_pr_b) semantics(per_rank)
void prod_inp_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0 + 0.25 * x[i]);
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(max_mix_g_b) semantics(global) varying(x)
void max_mix_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(max_mix_pr_b) semantics(per_rank)
void max_mix_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(max_rep_g_b) semantics(global) varying(x)
void max_rep_g(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(max_rep_pr_b) semantics(per_rank)
void max_rep_pr(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(max_inp_g_b) semantics(global) varying(x)
void max_inp_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(max_inp_pr_b) semantics(per_rank)
void max_inp_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(min_mix_g_b) semantics(global) varying(x)
void min_mix_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(min_mix_pr_b) semantics(per_rank)
void min_mix_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(min_rep_g_b) semantics(global) varying(x)
void min_rep_g(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yr) name(min_rep_pr_b) semantics(per_rank)
void min_rep_pr(const double *x, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  MPI_Allreduce(a, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(min_inp_g_b) semantics(global) varying(x)
void min_inp_g(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(min_inp_pr_b) semantics(per_rank)
void min_inp_pr(const double *x, double *yv, double *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5 * x[i];
  for (int i = 0; i < N; i++)
    s[i] = a[i];
  MPI_Allreduce(MPI_IN_PLACE, s, N, MPI_DOUBLE, MPI_MIN, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(fprod_mix_g_b) semantics(global) varying(x)
void fprod_mix_g(const float *x, float *yv, float *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * (1.0f + 0.25f * x[i]);
  MPI_Allreduce(a, s, N, MPI_FLOAT, MPI_PROD, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(fmax_mix_pr_b) semantics(per_rank)
void fmax_mix_pr(const float *x, float *yv, float *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5f * x[i];
  MPI_Allreduce(a, s, N, MPI_FLOAT, MPI_MAX, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
#pragma mpiad differentiate wrt(x) output(yv, yr) name(fsum_mix_g_b) semantics(global) varying(x)
void fsum_mix_g(const float *x, float *yv, float *yr, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  float a[N], s[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i] * x[i] + 0.5f * x[i];
  MPI_Allreduce(a, s, N, MPI_FLOAT, MPI_SUM, comm);
  for (int i = 0; i < N; i++) {
    yr[i] = s[i] * s[i] + sin(s[i]); /* replicated code */
    yv[i] = s[i] * x[i] * (r + 1);   /* rank-varying code */
  }
}
/* DESIGN.md: y = (r+2) * Allreduce_PROD((r+2) x) */
#pragma mpiad differentiate wrt(x) name(pex_g) varying(x)
double pex(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double p = 0.0;
  MPI_Allreduce(&a, &p, 1, MPI_DOUBLE, MPI_PROD, comm);
  return (r + 2) * p;
}

#pragma mpiad differentiate wrt(x) name(pex_pr) semantics(per_rank)
double pexr(const double *x, MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  double a = (r + 2) * x[0];
  double p = 0.0;
  MPI_Allreduce(&a, &p, 1, MPI_DOUBLE, MPI_PROD, comm);
  return (r + 2) * p;
}

/* adapters: y = [yv | yr] */
static void P_sum_mix_g(const double *x, const double *th, double *y) { (void)th; sum_mix_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_mix_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_mix_pr(const double *x, const double *th, double *y) { (void)th; sum_mix_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_mix_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_rep_g(const double *x, const double *th, double *y) { (void)th; sum_rep_g(x, y, MPI_COMM_WORLD); }
static void B_sum_rep_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_rep_g_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_sum_rep_pr(const double *x, const double *th, double *y) { (void)th; sum_rep_pr(x, y, MPI_COMM_WORLD); }
static void B_sum_rep_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_rep_pr_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_sum_inp_g(const double *x, const double *th, double *y) { (void)th; sum_inp_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_inp_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_inp_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_inp_pr(const double *x, const double *th, double *y) { (void)th; sum_inp_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_inp_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_inp_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_lin_g(const double *x, const double *th, double *y) { (void)th; sum_lin_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_lin_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_lin_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_lin_pr(const double *x, const double *th, double *y) { (void)th; sum_lin_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_lin_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_lin_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_lin_inp_g(const double *x, const double *th, double *y) { (void)th; sum_lin_inp_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_lin_inp_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_lin_inp_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_sum_lin_inp_pr(const double *x, const double *th, double *y) { (void)th; sum_lin_inp_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_sum_lin_inp_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  sum_lin_inp_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_prod_mix_g(const double *x, const double *th, double *y) { (void)th; prod_mix_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_prod_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_mix_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_prod_mix_pr(const double *x, const double *th, double *y) { (void)th; prod_mix_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_prod_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_mix_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_prod_rep_g(const double *x, const double *th, double *y) { (void)th; prod_rep_g(x, y, MPI_COMM_WORLD); }
static void B_prod_rep_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_rep_g_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_prod_rep_pr(const double *x, const double *th, double *y) { (void)th; prod_rep_pr(x, y, MPI_COMM_WORLD); }
static void B_prod_rep_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_rep_pr_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_prod_inp_g(const double *x, const double *th, double *y) { (void)th; prod_inp_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_prod_inp_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_inp_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_prod_inp_pr(const double *x, const double *th, double *y) { (void)th; prod_inp_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_prod_inp_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  prod_inp_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_max_mix_g(const double *x, const double *th, double *y) { (void)th; max_mix_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_max_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_mix_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_max_mix_pr(const double *x, const double *th, double *y) { (void)th; max_mix_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_max_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_mix_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_max_rep_g(const double *x, const double *th, double *y) { (void)th; max_rep_g(x, y, MPI_COMM_WORLD); }
static void B_max_rep_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_rep_g_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_max_rep_pr(const double *x, const double *th, double *y) { (void)th; max_rep_pr(x, y, MPI_COMM_WORLD); }
static void B_max_rep_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_rep_pr_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_max_inp_g(const double *x, const double *th, double *y) { (void)th; max_inp_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_max_inp_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_inp_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_max_inp_pr(const double *x, const double *th, double *y) { (void)th; max_inp_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_max_inp_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  max_inp_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_min_mix_g(const double *x, const double *th, double *y) { (void)th; min_mix_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_min_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_mix_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_min_mix_pr(const double *x, const double *th, double *y) { (void)th; min_mix_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_min_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_mix_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_min_rep_g(const double *x, const double *th, double *y) { (void)th; min_rep_g(x, y, MPI_COMM_WORLD); }
static void B_min_rep_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_rep_g_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_min_rep_pr(const double *x, const double *th, double *y) { (void)th; min_rep_pr(x, y, MPI_COMM_WORLD); }
static void B_min_rep_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_rep_pr_b(x, xb, y, yb, MPI_COMM_WORLD);
}
static void P_min_inp_g(const double *x, const double *th, double *y) { (void)th; min_inp_g(x, y, y + N, MPI_COMM_WORLD); }
static void B_min_inp_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_inp_g_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_min_inp_pr(const double *x, const double *th, double *y) { (void)th; min_inp_pr(x, y, y + N, MPI_COMM_WORLD); }
static void B_min_inp_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  (void)th; (void)thb;
  min_inp_pr_b(x, xb, y, yb, y + N, yb + N, MPI_COMM_WORLD);
}
static void P_fprod_mix_g(const double *x, const double *th, double *y) {
  float xf[N], yf[2 * N];
  (void)th;
  hx_tof(xf, x, N);
  fprod_mix_g(xf, yf, yf + N, MPI_COMM_WORLD);
  hx_tod(y, yf, 2 * N);
}
static void B_fprod_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[2 * N], ybf[2 * N];
  (void)th; (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, 2 * N);
  fprod_mix_g_b(xf, xbf, yf, ybf, yf + N, ybf + N, MPI_COMM_WORLD);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, 2 * N);
  hx_tod(yb, ybf, 2 * N);
}
static void P_fmax_mix_pr(const double *x, const double *th, double *y) {
  float xf[N], yf[2 * N];
  (void)th;
  hx_tof(xf, x, N);
  fmax_mix_pr(xf, yf, yf + N, MPI_COMM_WORLD);
  hx_tod(y, yf, 2 * N);
}
static void B_fmax_mix_pr(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[2 * N], ybf[2 * N];
  (void)th; (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, 2 * N);
  fmax_mix_pr_b(xf, xbf, yf, ybf, yf + N, ybf + N, MPI_COMM_WORLD);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, 2 * N);
  hx_tod(yb, ybf, 2 * N);
}
static void P_fsum_mix_g(const double *x, const double *th, double *y) {
  float xf[N], yf[2 * N];
  (void)th;
  hx_tof(xf, x, N);
  fsum_mix_g(xf, yf, yf + N, MPI_COMM_WORLD);
  hx_tod(y, yf, 2 * N);
}
static void B_fsum_mix_g(const double *x, double *xb, const double *th, double *thb, double *y, double *yb) {
  float xf[N], xbf[N] = {0}, yf[2 * N], ybf[2 * N];
  (void)th; (void)thb;
  hx_tof(xf, x, N);
  hx_tof(ybf, yb, 2 * N);
  fsum_mix_g_b(xf, xbf, yf, ybf, yf + N, ybf + N, MPI_COMM_WORLD);
  hx_addd(xb, xbf, N);
  hx_tod(y, yf, 2 * N);
  hx_tod(yb, ybf, 2 * N);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  unsigned long long seed = 100;
  {
    hx_case c = {"SUM sum_mix_g global", P_sum_mix_g, B_sum_mix_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_mix_pr per_rank", P_sum_mix_pr, B_sum_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_rep_g global", P_sum_rep_g, B_sum_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_rep_pr per_rank", P_sum_rep_pr, B_sum_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_inp_g global", P_sum_inp_g, B_sum_inp_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_inp_pr per_rank", P_sum_inp_pr, B_sum_inp_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_lin_g global", P_sum_lin_g, B_sum_lin_g, N, 0, N, N, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_lin_pr per_rank", P_sum_lin_pr, B_sum_lin_pr, N, 0, 2 * N, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_lin_inp_g global", P_sum_lin_inp_g, B_sum_lin_inp_g, N, 0, N, N, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"SUM sum_lin_inp_pr per_rank", P_sum_lin_inp_pr, B_sum_lin_inp_pr, N, 0, 2 * N, 0, 1};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_mix_g global", P_prod_mix_g, B_prod_mix_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_mix_pr per_rank", P_prod_mix_pr, B_prod_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_rep_g global", P_prod_rep_g, B_prod_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_rep_pr per_rank", P_prod_rep_pr, B_prod_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_inp_g global", P_prod_inp_g, B_prod_inp_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"PROD prod_inp_pr per_rank", P_prod_inp_pr, B_prod_inp_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_mix_g global", P_max_mix_g, B_max_mix_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_mix_pr per_rank", P_max_mix_pr, B_max_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_rep_g global", P_max_rep_g, B_max_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_rep_pr per_rank", P_max_rep_pr, B_max_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_inp_g global", P_max_inp_g, B_max_inp_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MAX max_inp_pr per_rank", P_max_inp_pr, B_max_inp_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_mix_g global", P_min_mix_g, B_min_mix_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_mix_pr per_rank", P_min_mix_pr, B_min_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_rep_g global", P_min_rep_g, B_min_rep_g, N, 0, 0, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_rep_pr per_rank", P_min_rep_pr, B_min_rep_pr, N, 0, N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_inp_g global", P_min_inp_g, B_min_inp_g, N, 0, N, N, 0};
    hx_case_run(&c, seed += 10);
  }
  {
    hx_case c = {"MIN min_inp_pr per_rank", P_min_inp_pr, B_min_inp_pr, N, 0, 2 * N, 0, 0};
    hx_case_run(&c, seed += 10);
  }
  /* float twins: the float adjoint against the double one */
  {
    hx_case cf = {"float PROD mix global", P_fprod_mix_g, B_fprod_mix_g, N, 0, N, N, 0};
    hx_case cd = {"PROD mix global", P_prod_mix_g, B_prod_mix_g, N, 0, N, N, 0};
    hx_case_twin(&cf, &cd, 900, 1e-4);
    cf.h = 1e-2; cf.fd_rtol = 5e-3; cf.fd_atol = 1e-3; cf.primal_rtol = 1e-6;
    hx_case_run(&cf, 910);
  }
  {
    hx_case cf = {"float MAX mix per_rank", P_fmax_mix_pr, B_fmax_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case cd = {"MAX mix per_rank", P_max_mix_pr, B_max_mix_pr, N, 0, 2 * N, 0, 0};
    hx_case_twin(&cf, &cd, 920, 1e-4);
  }
  {
    hx_case cf = {"float SUM mix global", P_fsum_mix_g, B_fsum_mix_g, N, 0, N, N, 0};
    hx_case cd = {"SUM mix global", P_sum_mix_g, B_sum_mix_g, N, 0, N, N, 0};
    hx_case_twin(&cf, &cd, 930, 1e-4);
    cf.h = 1e-2; cf.fd_rtol = 5e-3; cf.fd_atol = 1e-3; cf.primal_rtol = 1e-6;
    hx_case_run(&cf, 940);
  }

  /* DESIGN.md's PROD example at x = 1, exact: x_b = T * Pi on every rank */
  {
    double T = 0.0, Pi = 1.0;
    for (int q = 0; q < P; q++) {
      T += q + 2;
      Pi *= q + 2;
    }
    char label[128];
    for (int k = 0; k < 2; k++) {
      double x = 1.0, xb = 0.0;
      double v = k == 0 ? pex_g(&x, &xb, MPI_COMM_WORLD, 1.0)
                        : pex_pr(&x, &xb, MPI_COMM_WORLD, 1.0);
      hx_tape("PROD example");
      snprintf(label, sizeof label, "PROD example %s: x_b at x=1", k ? "per_rank" : "global");
      hx_check_each(label, xb, T * Pi, 1e-14, 1e-14);
      snprintf(label, sizeof label, "PROD example %s: primal value", k ? "per_rank" : "global");
      hx_check_each(label, v, (r + 2) * Pi, 1e-14, 1e-14);
    }
  }
  /* SUM is linear: dot-product tests of the SUM cases through a linear twin */
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
