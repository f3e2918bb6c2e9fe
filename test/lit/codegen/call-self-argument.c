// `v = f(v, c)` with f defined in this file: the reverse helper adds to v's
// adjoint, so the seed is taken into a temporary and v_b cleared BEFORE the
// call (clearing it after the call would lose the call's contribution).
// v's old value is pushed after the forward helper has pushed its own records
// (the tape is LIFO), so it is popped before the reverse helper runs, which
// then sees v as it was at the call.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK-LABEL: double iter_b(
// CHECK:      /* forward sweep */
// CHECK:      for (int t = 0; t < n; t++) {
// CHECK-NEXT:   double mpiad_r = mpiad_fwd_step(v, c);
// CHECK-NEXT:   mpiad_push_f64(v);
// CHECK-NEXT:   v = mpiad_r;
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK:      for (int t = n - 1; t >= 0; t--) {
// CHECK-NEXT:   v = mpiad_pop_f64();
// CHECK-NEXT:   double mpiad_t1 = v_b;
// CHECK-NEXT:   v_b = 0;
// CHECK-NEXT:   mpiad_rev_step(v, &v_b, c, mpiad_t1);
// CHECK-NEXT: }
// CHECK-NEXT: x_b_acc += v_b;

#include <math.h>

static double step(double v, double c) { return v + c * sin(v); }

#pragma mpiad differentiate wrt(x) varying(x)
double iter(double x, double c, int n) {
  double v = x;
  for (int t = 0; t < n; t++)
    v = step(v, c);
  return v;
}
