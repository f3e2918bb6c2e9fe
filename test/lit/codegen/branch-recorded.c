// A branch whose condition reads a value that the loop changes (s) cannot be
// re-evaluated in the reverse sweep: the forward sweep pushes which branch was
// taken (1 or 0) and the reverse sweep pops it. `s = s * x[i]` needs the old s
// in its adjoint, so s is pushed before it is overwritten and popped back.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double f_b(const double *x, double *x_b, int n, double f_bar) {
// CHECK:      /* forward sweep */
// CHECK:      for (int i = 0; i < n; i++) {
// CHECK-NEXT:   if (s > 2.0) {
// CHECK-NEXT:     mpiad_push_f64(s);
// CHECK-NEXT:     s = s * x[i];
// CHECK-NEXT:     mpiad_push_i64(1);
// CHECK-NEXT:   } else {
// CHECK:          s = s + x[i];
// CHECK-NEXT:     mpiad_push_i64(0);
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// The condition is not re-evaluated: `if (s > 2.0)` does not appear again.
// CHECK-NEXT:   if (mpiad_pop_i64()) {
// CHECK-NEXT:     s = mpiad_pop_f64();
// CHECK-NEXT:     double [[T:mpiad_t[0-9]+]] = s_b;
// CHECK-NEXT:     s_b = 0;
// CHECK-NEXT:     s_b += [[T]] * x[i];
// CHECK-NEXT:     x_b[i] += s * [[T]];
// CHECK-NEXT:   } else {
// CHECK:          x_b[i] += {{mpiad_t[0-9]+}};
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  if (s > 2.0)

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++) {
    if (s > 2.0)
      s = s * x[i];
    else
      s = s + x[i];
  }
  return s;
}
