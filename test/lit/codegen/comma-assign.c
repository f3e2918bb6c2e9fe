// The comma operator, assignments used as values, and loop conditions that
// need statements (exec/comma_assign_lowered.c runs them):
//   - `s = t = e` assigns t, then s from t;
//   - `for (kk = 0, j = 0; ...)`: the first part runs before the loop, the
//     last is the loop's (a counted loop stays counted);
//   - `for (int i = 0, k = n - 1; i < k; i++, k--)`: two declarations, and a
//     step of two statements (a while loop with the block as its step);
//   - `kk += 2, s += ...` as a statement: two statements;
//   - `while (g(s) < 4.0)` calls g at the top of each iteration, then tests;
//   - `do ... while (m-- > 0)` tests (and decrements) from the second
//     iteration on, before the body.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

static double g(double y) { return y * y + 0.1; }

#pragma mpiad differentiate forward wrt(x)
double f(const double *x, int n) {
  double s, t;
  s = t = x[0];
  int kk, j;
  for (kk = 0, j = 0; j < n; j++)
    kk += 2, s += x[j] * kk;
  for (int i = 0, k = n - 1; i < k; i++, k--)
    t += x[i] * x[k];
  while (g(s) < 4.0)
    s = s * 1.5;
  int m = n;
  do
    t = t * 0.5;
  while (m-- > 0);
  return s + t;
}
// CHECK-LABEL: {{^}}double f_d(
// CHECK:      t_d = x_d[0];
// CHECK-NEXT: t = x[0];
// CHECK-NEXT: s_d = t_d;
// CHECK-NEXT: s = t;
// CHECK-NEXT: kk = 0;
// CHECK-NEXT: for (j = 0; j < n; j++) {
// CHECK-NEXT:   kk += 2;
// CHECK-NEXT:   s_d += x_d[j] * kk;
// CHECK-NEXT:   s += x[j] * kk;
// CHECK-NEXT: }
// CHECK-NEXT: i = 0;
// CHECK-NEXT: {
// CHECK-NEXT:   k = n - 1;
// CHECK-NEXT:   while (i < k) {
// CHECK-NEXT:     t_d += x_d[i] * x[k] + x[i] * x_d[k];
// CHECK-NEXT:     t += x[i] * x[k];
// CHECK-NEXT:     {
// CHECK-NEXT:       i++;
// CHECK-NEXT:       k--;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: mpiad_break1 = 0;
// CHECK-NEXT: while (!mpiad_break1 && 1) {
// CHECK-NEXT:   mpiad_c1 = mpiad_tan_g(s, s_d);
// CHECK-NEXT:   if (!(mpiad_c1 < 4.0)) {
// CHECK-NEXT:     mpiad_break1 = 1;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (!mpiad_break1) {
// CHECK-NEXT:     s_d = s_d * 1.5;
// CHECK-NEXT:     s = s * 1.5;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: m = n;
// CHECK-NEXT: mpiad_first2 = 1;
// CHECK-NEXT: mpiad_break2 = 0;
// CHECK-NEXT: while (!mpiad_break2 && 1) {
// CHECK-NEXT:   if (!mpiad_first2) {
// CHECK-NEXT:     mpiad_cond1 = m > 0;
// CHECK-NEXT:     m--;
// CHECK-NEXT:     if (!mpiad_cond1) {
// CHECK-NEXT:       mpiad_break2 = 1;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   if (!mpiad_break2) {
// CHECK-NEXT:     mpiad_first2 = 0;
// CHECK-NEXT:     t_d = t_d * 0.5;
// CHECK-NEXT:     t = t * 0.5;
