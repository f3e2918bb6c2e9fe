// The clauses spelled out: `reverse`, name(step_adj), semantics(global). u is in
// both wrt and output (updated in place): one shadow u_b, which holds the
// output's seed on entry and the input's adjoint on return; the old u[i] is
// needed by the adjoint of u[i] = c*u[i]*u[i]: the loop pushes the range
// u[0..n-1] before overwriting it, and the reverse sweep pops it back before
// the reversed loop, whose iterations read only the element they restore
// (RecordRange.cpp).
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}}// #pragma mpiad differentiate reverse wrt(u, c) output(u) name(step_adj) semantics(global)
// CHECK:      {{^}} * mpiad: adjoint (reverse mode) of step, semantics(global)
// CHECK-NEXT: {{^}} *   independents: u, c
// CHECK-NEXT: {{^}} *   dependents:   u
// CHECK-NEXT: {{^}} *   replicated:   (none)
// CHECK-NEXT: {{^}} *   varying:      c
// CHECK-NEXT: {{^}} *   void step_adj(double *u, double *u_b, double c, double *c_b, int n)
// CHECK:      {{^}}void step_adj(double *u, double *u_b, double c, double *c_b, int n) {
// CHECK:      /* forward sweep */
// CHECK-NEXT: mpiad_push_f64_array(&u[0], n > 0 ? n : 0);
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT:   u[i] = c * u[i] * u[i];
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK-NEXT: mpiad_pop_f64_array(&u[0], n > 0 ? n : 0);
// CHECK-NEXT: for (int i = n - 1; i >= 0; i--) {
// The seed is taken out of u_b[i] before the input's adjoint is added back.
// CHECK-NEXT:   double [[S:mpiad_t[0-9]+]] = u_b[i];
// CHECK-NEXT:   u_b[i] = 0;
// CHECK:        c_b_acc += {{.*}};
// CHECK:        u_b[i] += c * u[i] * [[S]];
// CHECK-NEXT: }
// CHECK:      c_b[0] += c_b_acc;

// float stays float; output(return, y) gives y a shadow and the return a seed.
// CHECK:      {{^}} *   dependents:   return, y (varying: summed over ranks)
// CHECK:      {{^}}float g_b(const float *x, float *x_b, float *y, float *y_b, int n, double g_bar) {
// CHECK:      /* reverse sweep */
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   x_b[i] += s_b;
// CHECK-NEXT:   x_b[i] += 2.0f * y_b[i];
// CHECK-NEXT:   y_b[i] = 0;
// CHECK-NEXT: }

#pragma mpiad differentiate reverse wrt(u, c) output(u) name(step_adj) semantics(global) varying(c, u)
void step(double *u, double c, int n) {
  for (int i = 0; i < n; i++)
    u[i] = c * u[i] * u[i];
}

#pragma mpiad differentiate wrt(x) output(return, y) varying(x)
float g(const float *x, float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    y[i] = 2.0f * x[i];
    s += x[i];
  }
  return s;
}
