// The adjoint of a sum of squares: one line per partial derivative, no tape.
// The code after the loop needs no forward values, so the loop's adjoint runs
// inside the loop, after each iteration's forward half (sweep fusion).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s --implicit-check-not=mpiad_push

// CHECK: {{^}}double sumsq_b(const double *x, double *x_b, int n, double sumsq_bar) {
// CHECK: /* forward sweep */
// CHECK: for (int i = 0; i < n; i++) {
// CHECK-NEXT: s += x[i] * x[i];
// CHECK-NEXT: /* adjoint of this iteration */
// CHECK-NEXT: x_b[i] += s_b * x[i];
// CHECK-NEXT: x_b[i] += x[i] * s_b;
// CHECK: /* reverse sweep */

#pragma mpiad differentiate wrt(x) varying(x)
double sumsq(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
