// Code that carries no derivative (integer bookkeeping, printf) runs once, in the
// forward sweep; it is not repeated in the reverse sweep. name(...) sets the
// adjoint's name.  (The result is s * s: the loop's adjoint needs s, so it is
// not fused into the loop.)
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}}// #pragma mpiad differentiate wrt(x) name(grad_of_f)
// CHECK:      {{^}} *   double grad_of_f(const double *x, double *x_b, int n, double f_bar)
// CHECK-NEXT: {{^}} * Adjoints of inputs are accumulated (+=): zero them first.
// CHECK-NEXT: {{^}} */
// CHECK-NEXT: {{^}}double grad_of_f(const double *x, double *x_b, int n, double f_bar) {
// CHECK:      /* forward sweep */
// CHECK:      count += i % 3;
// CHECK-NEXT: s += 3.0 * x[i];
// CHECK:      printf("count %d\n", count);
// CHECK:      /* reverse sweep */
// CHECK-NOT:  count
// CHECK-NOT:  printf
// CHECK:      for (int i = n - 1; i >= 0; i--) {
// CHECK-NEXT:   x_b[i] += 3.0 * s_b;
// CHECK-NEXT: }
// CHECK-NOT:  count
// CHECK-NOT:  printf
// CHECK:      return mpiad_ret;
// No f_b: the name clause replaces it.
// CHECK-NOT:  f_b(

#include <stdio.h>

#pragma mpiad differentiate wrt(x) name(grad_of_f) varying(x)
double f(const double *x, int n) {
  int count = 0;
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    count += i % 3;
    s += 3.0 * x[i];
  }
  printf("count %d\n", count);
  return s * s;
}
