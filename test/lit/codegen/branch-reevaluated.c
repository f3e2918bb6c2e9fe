// A branch whose condition cannot change during the call (t is a by-value
// parameter nobody assigns) is simply evaluated again in the reverse sweep:
// no flag is pushed or popped.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double g_b(const double *x, double *x_b, int n, double t, double g_bar) {
// CHECK-NOT:  mpiad_push
// CHECK:      /* forward sweep */
// CHECK:      for (int i = 0; i < n; i++) {
// CHECK-NEXT:   if (t > 0.0) {
// CHECK-NEXT:     s += x[i] * x[i];
// CHECK-NEXT:   } else {
// CHECK-NEXT:     s -= x[i];
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   if (t > 0.0) {
// CHECK-NEXT:     x_b[i] += s_b * x[i];
// CHECK-NEXT:     x_b[i] += x[i] * s_b;
// CHECK-NEXT:   } else {
// CHECK-NEXT:     x_b[i] += -s_b;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  mpiad_pop

#pragma mpiad differentiate wrt(x) varying(x)
double g(const double *x, int n, double t) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (t > 0.0)
      s += x[i] * x[i];
    else
      s -= x[i];
  }
  return s;
}
