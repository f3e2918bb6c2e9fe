// A linear stencil writes v from u: v is an output, u is read only, and no
// adjoint statement needs a value that was overwritten, so nothing is taped.
// The loop `for (i = 1; i < n - 1; i++)` is reversed from its last index.
//
// RUN: %mpiad-emit %s -o - | FileCheck %s

// CHECK:      {{^}} *   dependents:   v
// CHECK:      {{^}}void stencil_b(const double *u, double *u_b, double *v, double *v_b, int n) {
// CHECK-NOT:  mpiad_push
// CHECK:      /* forward sweep */
// CHECK-NEXT: for (int i = 1; i < n - 1; i++) {
// CHECK-NEXT:   v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// CHECK-NEXT: for (int i = n - 1 - 1; i >= 1; i--) {
// CHECK-NEXT:   u_b[i - 1] += v_b[i];
// CHECK-NEXT:   u_b[i] += -(2.0 * v_b[i]);
// CHECK-NEXT:   u_b[i + 1] += v_b[i];
// The output's seed is consumed: zero on return.
// CHECK-NEXT:   v_b[i] = 0;
// CHECK-NEXT: }
// CHECK-NEXT: {{^}}}
// CHECK-NOT:  mpiad_pop

#pragma mpiad differentiate wrt(u) output(v)
void stencil(const double *u, double *v, int n) {
  for (int i = 1; i < n - 1; i++)
    v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
}
