// A while loop whose trip count is not known in advance: the forward sweep counts
// the iterations and pushes the count; the reverse sweep pops it and runs the loop
// body's adjoint that many times.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double f_b(double x, double *x_b, double f_bar) {
// CHECK:      /* forward sweep */
// CHECK:      mpiad_iter = 0;
// CHECK-NEXT: while (x < 100.0) {
// CHECK-NEXT:   x = x * 2.0;
// CHECK-NEXT:   k++;
// CHECK-NEXT:   mpiad_iter++;
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_push_i64(mpiad_iter);
// CHECK:      /* reverse sweep */
// CHECK:      for (mpiad_iter = mpiad_pop_i64(); mpiad_iter > 0; mpiad_iter--) {
// x = x * 2.0: the adjoint of x is read, reset, and doubled.
// CHECK-NEXT:   double [[T:mpiad_t[0-9]+]] = x_b_acc;
// CHECK-NEXT:   x_b_acc = 0;
// CHECK-NEXT:   x_b_acc += [[T]] * 2.0;
// CHECK-NEXT: }
// The integer counter k carries no derivative: not in the reverse sweep.
// CHECK-NOT:  k++
// CHECK:      x_b[0] += x_b_acc;

#pragma mpiad differentiate wrt(x)
double f(double x) {
  int k = 0;
  while (x < 100.0) {
    x = x * 2.0;
    k++;
  }
  return x;
}
