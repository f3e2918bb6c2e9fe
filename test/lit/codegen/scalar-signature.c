// Scalar independents: the signature gets a `double *s_b` after each scalar in
// wrt(...) and a trailing seed `f_bar`; the header comment says what is what.
// The adjoint of each term is accumulated into a local and added to *x_b at the end.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// The input is kept, with the pragma commented out, and mpiad.h included after its own leading includes.
// CHECK: {{^}}#include "mpiad.h"
// CHECK: {{^}}// #pragma mpiad differentiate wrt(x, y)
// CHECK-NEXT: {{^}}double f(double x, double y) {
// CHECK-NEXT: {{^}}  return x * y + x / y - y;

// CHECK:      {{^}} * mpiad: adjoint (reverse mode) of f, semantics(global)
// CHECK-NEXT: {{^}} *   independents: x, y
// CHECK-NEXT: {{^}} *   dependents:   return value (varying: summed over ranks)
// CHECK-NEXT: {{^}} *   replicated:   (none)
// CHECK-NEXT: {{^}} *   varying:      x, y
// CHECK-NEXT: {{^}} *   double f_b(double x, double *x_b, double y, double *y_b, double f_bar)
// CHECK-NEXT: {{^}} * Adjoints of inputs are accumulated (+=): zero them first.
// CHECK-NEXT: {{^}} */
// CHECK-NEXT: {{^}}double f_b(double x, double *x_b, double y, double *y_b, double f_bar) {

// CHECK:      /* forward sweep */
// CHECK-NEXT: mpiad_ret = x * y + x / y - y;
// CHECK-EMPTY:
// CHECK-NEXT: /* reverse sweep */
// CHECK-NEXT: mpiad_ret_b = f_bar;
// Product rule, quotient rule, minus.
// CHECK-NEXT: x_b_acc += mpiad_ret_b * y;
// CHECK-NEXT: y_b_acc += x * mpiad_ret_b;
// CHECK-NEXT: x_b_acc += mpiad_ret_b / y;
// CHECK-NEXT: y_b_acc += -(mpiad_ret_b * x / (y * y));
// CHECK-NEXT: y_b_acc += -mpiad_ret_b;
// CHECK-NEXT: mpiad_ret_b = 0;
// CHECK-EMPTY:
// CHECK-NEXT: x_b[0] += x_b_acc;
// CHECK-NEXT: y_b[0] += y_b_acc;
// CHECK-NEXT: return mpiad_ret;
// CHECK-NEXT: {{^}}}
// Nothing is recorded: no value is overwritten.
// CHECK-NOT: mpiad_push

#pragma mpiad differentiate wrt(x, y) varying(x, y)
double f(double x, double y) {
  return x * y + x / y - y;
}
