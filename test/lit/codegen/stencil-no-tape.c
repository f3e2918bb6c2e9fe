// A linear stencil writes v from u: v is an output, u is read only, and no
// adjoint statement needs a value that was overwritten, so nothing is taped.
// The loop `for (i = 1; i < n - 1; i++)` is reversed from its last index.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}} *   dependents:   v
// CHECK:      {{^}}void stencil_b(const double *u, double *u_b, double *v, double *v_b, int n) {
// CHECK-NOT:  mpiad_push
// CHECK:      /* forward sweep */
// CHECK-NEXT: for (int i = 1; i < n - 1; i++) {
// CHECK-NEXT:   v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
// CHECK-NEXT: }
// CHECK:      /* reverse sweep */
// The reversed loop would scatter into u_b[i - 1], u_b[i], u_b[i + 1] (a
// dependence between iterations); it is emitted as a gather instead: a main
// loop that vectorizes, boundary iterations peeled with their guards.  The
// output's seed is consumed (zero on return) right after its last read.
// CHECK-NEXT: /* reverse of the stencil loop over i, as a gather (boundary iterations peeled) */
// CHECK-NEXT: for (int mpiad_j = 0; mpiad_j <= (1 < n - 1 ? 1 : n - 1); mpiad_j++) {
// CHECK:      for (int mpiad_j2 = 2; mpiad_j2 <= n - 3; mpiad_j2++) {
// CHECK-NEXT:   u_b[mpiad_j2] += v_b[mpiad_j2 + 1] + -(2.0 * v_b[mpiad_j2]) + v_b[mpiad_j2 - 1];
// CHECK-NEXT:   v_b[mpiad_j2 - 1] = 0;
// CHECK-NEXT: }
// CHECK-NEXT: for (int mpiad_j3 = 2 > n - 2 ? 2 : n - 2; mpiad_j3 <= n - 1; mpiad_j3++) {
// CHECK:        v_b[mpiad_j3 - 1] = 0;
// CHECK-NEXT: }
// CHECK-NEXT: {{^}}}
// CHECK-NOT:  mpiad_pop

#pragma mpiad differentiate wrt(u) output(v) varying(u)
void stencil(const double *u, double *v, int n) {
  for (int i = 1; i < n - 1; i++)
    v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
}
