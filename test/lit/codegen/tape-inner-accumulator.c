// r is reset at each outer step and accumulated by an inner loop; only its final
// value of each outer step is needed (by the adjoint of local += r * r). One push
// per outer step (before `r = b - y[i]`) restores it; the inner `r += ...` needs
// no push: its adjoint does not read r.  (Two sums, local and lin, so that the
// loop's adjoint stays in the reverse sweep: DeferredSeed.cpp runs the adjoint
// of a loop with one sum inside the loop, where nothing needs recording.)
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}}double fit_b(
// CHECK:      /* forward sweep */
// CHECK:      mpiad_push_f64(r);
// CHECK-NEXT: r = b - y[i];
// CHECK-NEXT: for (int j = 0; j < d; j++) {
// CHECK-NEXT:   r += w[j] * x[i * d + j];
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK:      for (int j = d - 1; j >= 0; j--) {
// CHECK-NEXT:   w_b_part[j] += r_b * x[i * d + j];
// CHECK-NEXT: }

#include <mpi.h>

#pragma mpiad differentiate wrt(w, b) replicated(w, b, d)
double fit(const double *w, double b, const double *x, const double *y, int n,
           int d, MPI_Comm comm) {
  double local = 0.0, lin = 0.0;
  for (int i = 0; i < n; i++) {
    double r = b - y[i];
    for (int j = 0; j < d; j++)
      r += w[j] * x[i * d + j];
    local += r * r;
    lin += r;
  }
  double total = 0.0;
  local += lin * lin;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total;
}
