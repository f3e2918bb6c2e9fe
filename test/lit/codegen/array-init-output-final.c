// A local array initialised from values that may carry derivatives becomes
// element assignments (missing elements zero), so derivatives flow through it.
// The in-place output u is overwritten where the reverse sweep needs its old
// values: they are recorded (one array push of u[1..n-2]) and restored before
// the reversed loop, whose iteration i reads u[i] and u[i + 1], both restored
// by then (RecordRange.cpp), and the final values are kept (the
// length, max(1, n), is inferred from u[0] and the loop writing u[i]/reading
// u[i + 1]) and copied back before returning.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK-LABEL: {{^}}void smooth_b(double *u, double *u_b, int n) {
// CHECK:      /* forward sweep */
// CHECK-NEXT: w[0] = u[0];
// CHECK-NEXT: w[1] = 0.5;
// CHECK-NEXT: w[2] = 0;
// CHECK:      mpiad_push_f64_array(&u[1], n - 2 > 0 ? n - 2 : 0);
// CHECK:      /* outputs the reverse sweep will restore: keep their final values */
// CHECK-NEXT: double *u_final = malloc(mpiad_max_len(1, n) * sizeof(double));
// CHECK-NEXT: memcpy(u_final, u, mpiad_max_len(1, n) * sizeof(double));
// CHECK:      /* reverse sweep */
// CHECK-NEXT: mpiad_pop_f64_array(&u[1], n - 2 > 0 ? n - 2 : 0);
// CHECK-NEXT: for (int i = n - 2; i >= 1; i--) {
// CHECK:        w_b[1] += mpiad_t1 * u[i + 1];
// CHECK:      u_b[0] += w_b[0];
// CHECK:      memcpy(u, u_final, mpiad_max_len(1, n) * sizeof(double));
// CHECK-NEXT: free(u_final);
// CHECK-NEXT: {{^}}}

#pragma mpiad differentiate wrt(u) output(u) varying(u)
void smooth(double *u, int n) {
  double w[3] = {u[0], 0.5};
  for (int i = 1; i < n - 1; i++)
    u[i] = u[i] * u[i] + w[1] * u[i + 1] + w[0];
}
