// A malloc'd work buffer that carries derivatives gets a shadow allocated with
// calloc right after it; free(t) is moved to the reverse sweep (t is still read
// there), and the shadow is freed with it.  (The result is s * s, so that the
// adjoint of the last loop needs s and is not fused into the loop.)
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double sq_b(const double *x, double *x_b, int n, double sq_bar) {
// CHECK:      double *t = NULL;
// CHECK:      double *t_b = NULL;
// CHECK:      /* forward sweep */
// CHECK:      t = malloc(n * sizeof(double));
// CHECK-NEXT: t_b = calloc(1, n * sizeof(double));
// t is freshly allocated: its old contents are never needed.
// CHECK-NOT:  mpiad_push_f64
// CHECK:      /* free(t) happens in the reverse sweep */
// CHECK-NEXT: mpiad_ret = s * s;
// CHECK:      /* reverse sweep */
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   t_b[i] += s_b * x[i];
// CHECK-NEXT:   x_b[i] += t[i] * s_b;
// CHECK-NEXT: }
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   x_b[i] += t_b[i] * x[i];
// CHECK-NEXT:   x_b[i] += x[i] * t_b[i];
// CHECK-NEXT:   t_b[i] = 0;
// CHECK-NEXT: }
// CHECK-NEXT: free(t);
// CHECK-NEXT: free(t_b);
// CHECK:      return mpiad_ret;
// CHECK-NEXT: {{^}}}

#include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x)
double sq(const double *x, int n) {
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += t[i] * x[i];
  free(t);
  return s * s;
}
