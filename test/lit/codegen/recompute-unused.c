// The reverse of a block computes again only the locals its reverse reads:
// in the loop body, c indexes the active x and is set again; u feeds only
// the inactive count and is not; at the top, last (the count's loop bound)
// is not set again either (the reverse sweep used to set both, as
// samples/halo2d set its four neighbours' ranks again for nothing).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK-LABEL: double f_b(
// CHECK: /* reverse sweep */
// CHECK-NOT: last = n - 1;
// CHECK: for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT: c = (i * m + 1) % n;
// CHECK-NEXT: x_b[c] += s_b * x[c];
// CHECK-NOT: u = i + 7;
// CHECK: return mpiad_ret;

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n, int m) {
  int last = n - 1;
  double count = 0.0;
  for (int i = 0; i < last; i++)
    count += 1.0;
  double s = count;
  for (int i = 0; i < n; i++) {
    int c = (i * m + 1) % n;
    int u = i + 7;
    s += x[c] * x[c];
    count += u;
  }
  return s + 0.0 * count;
}
