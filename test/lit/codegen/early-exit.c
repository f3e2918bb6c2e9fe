// continue, break and an early return become flags: the loop turns into a while
// loop guarded by the break flag (its trip count is pushed), the statements after
// a continue/break/return run under `if (!flag)`, and the branches taken are
// pushed so that the reverse sweep replays exactly the statements that ran.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double h_b(const double *x, double *x_b, int n, double h_bar) {
// CHECK-DAG:  int [[CONT:mpiad_continue[0-9]+]] = 0;
// CHECK-DAG:  int [[BRK:mpiad_break[0-9]+]] = 0;
// CHECK-DAG:  int [[RET:mpiad_returned[0-9]+]] = 0;
// CHECK:      /* forward sweep */
// CHECK:      while (![[BRK]] && i < n) {
// CHECK-NEXT:   [[CONT]] = 0;
// CHECK-NEXT:   if (x[i] < 0.0) {
// CHECK-NEXT:     [[CONT]] = 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (![[CONT]]) {
// CHECK-NEXT:     if (s > 10.0) {
// CHECK-NEXT:       [[BRK]] = 1;
// CHECK-NEXT:     }
// CHECK-NEXT:     if (![[BRK]]) {
// CHECK-NEXT:       s += x[i] * x[i];
// CHECK-NEXT:       mpiad_push_i64(1);
// CHECK-NEXT:     } else {
// CHECK-NEXT:       mpiad_push_i64(0);
// CHECK-NEXT:     }
// CHECK:        mpiad_iter++;
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_push_i64(mpiad_iter);
// The early return sets the flag; the final return runs only if it is not set.
// CHECK-NEXT: if (s > 5.0) {
// CHECK-NEXT:   mpiad_ret = s * s;
// CHECK-NEXT:   [[RET]] = 1;
// CHECK-NEXT:   mpiad_push_i64(1);
// CHECK-NEXT: } else {
// CHECK-NEXT:   mpiad_push_i64(0);
// CHECK-NEXT: }
// CHECK-NEXT: if (![[RET]]) {
// CHECK-NEXT:   mpiad_ret = s;
// CHECK-NEXT:   mpiad_push_i64(1);
// CHECK:      /* reverse sweep */
// CHECK-NEXT: mpiad_ret_b = h_bar;
// The last return first: its flag is the last pushed.
// CHECK-NEXT: if (mpiad_pop_i64()) {
// CHECK-NEXT:   s_b += mpiad_ret_b;
// CHECK-NEXT:   mpiad_ret_b = 0;
// CHECK-NEXT: }
// CHECK-NEXT: if (mpiad_pop_i64()) {
// CHECK-NEXT:   s_b += mpiad_ret_b * s;
// CHECK-NEXT:   s_b += s * mpiad_ret_b;
// CHECK-NEXT:   mpiad_ret_b = 0;
// CHECK-NEXT: }
// CHECK-NEXT: for (mpiad_iter = mpiad_pop_i64(); mpiad_iter > 0; mpiad_iter--) {
// CHECK:          x_b[i] += s_b * x[i];
// CHECK-NEXT:     x_b[i] += x[i] * s_b;

#pragma mpiad differentiate wrt(x) varying(x)
double h(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0)
      continue;
    if (s > 10.0)
      break;
    s += x[i] * x[i];
  }
  if (s > 5.0)
    return s * s;
  return s;
}
