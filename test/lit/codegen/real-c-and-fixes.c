// The generated code of this session's fixes (their execution tests are
// exec/increment_in_expression.c, exec/fusion_early_return.c and
// exec/replicated_varying_exit.c):
//   - `a[k++] = e` becomes the store, then the increment; the reverse
//     sweep reads k, and computes its old value (`k--`) instead of popping
//     a record of it (since stop 35);
//   - a loop followed by returns that record which was taken is not fused:
//     the loop has no adjoint inside it, and the returns' flags are pushed
//     before the reverse sweep pops them;
//   - a replicated input reassigned under rank-varying control sums its
//     shares over ranks at the end.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>

#pragma mpiad differentiate wrt(x) varying(x, n)
double pack(const double *x, int n) {
  double a[8];
  int k = 0;
  for (int i = 0; i < n; i++)
    a[k++] = x[i] * x[i];
  return a[0] * a[1];
}
// CHECK-LABEL: {{^}}double pack_b(
// CHECK:      for (int i = 0; i < n; i++) {
// CHECK-NEXT:   a[k] = x[i] * x[i];
// CHECK-NEXT:   k++;
// CHECK-NEXT: }
// CHECK-NOT:  mpiad_pop_i64
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   k--;
// CHECK-NEXT:   x_b[i] += a_b[k] * x[i];

#pragma mpiad differentiate wrt(x) varying(x, n)
double early(const double *x, int n) {
  double loc = 0.0;
  for (int i = 0; i < n; i++)
    loc += x[i] * x[i];
  if (loc > 4.0)
    return 3.0 * loc;
  return loc;
}
// CHECK-LABEL: {{^}}double early_b(
// CHECK-NOT:  adjoint of this iteration
// CHECK:      for (int i = 0; i < n; i++) {
// CHECK-NEXT:   loc += x[i] * x[i];
// CHECK-NEXT: }
// CHECK:      mpiad_push_i64(1);
// CHECK:      /* reverse sweep */
// CHECK:      if (mpiad_pop_i64()) {

#pragma mpiad differentiate wrt(b) replicated(b) varying(a)
double rep(double b, double a) {
  double v = b * b * a;
  if (a < 0.5)
    b = b - 1.0;
  return v + b * a;
}
// CHECK-LABEL: {{^}}double rep_b(double b, double *b_b, double a, double rep_bar) {
// CHECK:      mpiad_batch_begin(&mpiad_sum, MPI_COMM_WORLD);
// CHECK-NEXT: mpiad_batch_add_f64(&mpiad_sum, &b_b_acc, b_b, 1);
// CHECK-NEXT: mpiad_batch_allreduce(&mpiad_sum);
