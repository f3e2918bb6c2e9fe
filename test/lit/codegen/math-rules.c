// Calls to math.h functions are differentiated with the rules of
// rules/math.rules: d exp(x) = exp(x); pow(x, y) has one rule per argument,
// printed as written in the rule file.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK: {{^}}double ep_b(double x, double *x_b, double y, double *y_b, double ep_bar) {
// CHECK:      /* forward sweep */
// CHECK-NEXT: mpiad_ret = exp(x) + pow(x, y) + sin(y);
// CHECK:      /* reverse sweep */
// CHECK-NEXT: mpiad_ret_b = ep_bar;
// CHECK-NEXT: x_b_acc += mpiad_ret_b * exp(x);
// CHECK-NEXT: x_b_acc += mpiad_ret_b * (y == 0.0 ? 0.0 : y * pow(x, y - 1.0));
// CHECK-NEXT: y_b_acc += mpiad_ret_b * (x > 0.0 ? pow(x, y) * log(x) : 0.0);
// CHECK-NEXT: y_b_acc += mpiad_ret_b * cos(y);
// CHECK-NEXT: mpiad_ret_b = 0;

#include <math.h>

#pragma mpiad differentiate wrt(x, y) varying(x, y)
double ep(double x, double y) {
  return exp(x) + pow(x, y) + sin(y);
}
