// The fix for replicated-length-unknown.c: replicated(theta[3]) gives the length,
// the file is accepted, and the length sizes theta's per-rank share and its
// reduction.
//
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --allow-empty --implicit-check-not error: --implicit-check-not warning:
// RUN: FileCheck --check-prefix=GEN --input-file %t.c %s

// GEN: {{^}} *   replicated:   theta
// GEN: {{^}}double f_b(const double *theta, double *theta_b, const double *x, int n, MPI_Comm comm, double f_bar) {
// GEN: double *theta_b_part = mpiad_alloc_zeroed((3), sizeof(double), "{{[a-z_]*}}", "theta", {{[A-Za-z_]*}});
// GEN: theta_b_part[i % 3] += local_b * x[i];
// GEN: mpiad_batch_add_f64(&mpiad_sum, theta_b_part, theta_b, (3));
// GEN-NEXT: mpiad_batch_allreduce(&mpiad_sum);

#include <mpi.h>

#pragma mpiad differentiate wrt(theta) replicated(theta[3])
double f(const double *theta, const double *x, int n, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++)
    local += theta[i % 3] * x[i];
  double s;
  MPI_Allreduce(&local, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s;
}
