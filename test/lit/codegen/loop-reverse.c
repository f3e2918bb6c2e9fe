// A canonical counted loop is reversed as a counted loop (no iteration count on
// the tape), and a sum of products records nothing: `s += x[i] * y[i]`
// overwrites s, but its adjoint needs neither the old s nor anything else that
// changes.  Here the result is s * s, so the loop's adjoint needs the final s
// and runs in the reverse sweep (see sweep-fusion.c for the plain dot
// product).
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double dotsq_b(const double *x, double *x_b, const double *y, int n, double dotsq_bar) {
// CHECK-NOT: mpiad_push
// CHECK:      /* forward sweep */
// CHECK-NEXT: s = 0.0;
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT:   s += x[i] * y[i];
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_ret = s * s;
// CHECK:      /* reverse sweep */
// CHECK-NEXT: mpiad_ret_b = dotsq_bar;
// CHECK-NEXT: s_b += mpiad_ret_b * s;
// CHECK-NEXT: s_b += s * mpiad_ret_b;
// CHECK-NEXT: mpiad_ret_b = 0;
// CHECK-NEXT: for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   x_b[i] += s_b * y[i];
// CHECK-NEXT: }
// CHECK-NEXT: s_b = 0;
// CHECK-NEXT: return mpiad_ret;
// CHECK-NEXT: {{^}}}
// CHECK-NOT: mpiad_pop

#pragma mpiad differentiate wrt(x) varying(x)
double dotsq(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s * s;
}
