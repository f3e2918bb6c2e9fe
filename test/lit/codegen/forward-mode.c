// Forward (tangent) mode: F_d takes a direction for each wrt input (p_d after
// a pointer, double s_d after a scalar), returns the primal and writes the
// directional derivative to the last argument.  Tangent statements come
// before the primal statement they differentiate; the Allreduce takes its
// tangent step from the rule table (the same reduction on the tangents).
// A math call that both statements evaluate is computed once (CallReuse.cpp).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK: {{^}} * mpiad: tangent (forward mode) of f
// CHECK: {{^}}double f_d(const double *x, double *x_d, double k, double k_d, int n, MPI_Comm comm, double *f_dot) {
// CHECK:      for (int i = 0; i < n; i++) {
// CHECK-NEXT:   double mpiad_t1 = sin(x[i]);
// CHECK-NEXT:   s_d += cos(x[i]) * x_d[i] * k + mpiad_t1 * k_d;
// CHECK-NEXT:   s += mpiad_t1 * k;
// CHECK-NEXT: }
// CHECK-NEXT: MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: MPI_Allreduce(&s_d, &g_d, 1, MPI_DOUBLE, MPI_SUM, comm);
// CHECK-NEXT: mpiad_ret_d = g_d * g + g * g_d;
// CHECK-NEXT: mpiad_ret = g * g;
// CHECK-NEXT: f_dot[0] = mpiad_ret_d;
// CHECK-NEXT: return mpiad_ret;
// CHECK-NOT: mpiad_push
#include <math.h>
#include <mpi.h>

#pragma mpiad differentiate forward wrt(x, k)
double f(const double *x, double k, int n, MPI_Comm comm) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * k;
  double g;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g * g;
}
