// Top-level const is dropped from the locals and return types of generated
// functions: their declarations move to the top and their initial values
// become assignments (`const double t = ...` would not compile).  Pointers
// to const keep their const.  A struct with float/double fields and a brace
// initialiser gets one assignment per field (its fields carry derivatives).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK-LABEL: {{^}}static double mpiad_fwd_g(double y) {
// CHECK-NEXT:   double mpiad_ret = 0;
// CHECK-NEXT:   double c = 0;
// CHECK-NEXT:   c = 2.0 * y;

// CHECK-LABEL: {{^}}double f_b(const double *x, double *x_b, int n, double f_bar) {
// CHECK-NOT:    const double t
// CHECK:        int *p = NULL;
// CHECK:        const double *row = NULL;
// CHECK:        struct P sp;
// CHECK:        double t = 0;
// CHECK:        /* forward sweep */
// CHECK:        p = &k;
// CHECK:        sp.a = 2.0;
// CHECK-NEXT:   sp.k = 3;
// CHECK:        t = x[i] * x[i];

// CHECK-LABEL: {{^}}double f2_b(double x, double *x_b, double f2_bar) {
// CHECK-NEXT:   double mpiad_ret = 0;
// CHECK-NEXT:   double c = 0;

#include <math.h>

struct P {
  double a;
  int k;
};

static const double g(double y) {
  const double c = 2.0 * y;
  return c * y;
}

#pragma mpiad differentiate wrt(x) replicated(x, n)
double f(const double *x, int n) {
  double s = 0.0;
  int k = 3;
  int *const p = &k;
  const double *row = x + 1;
  struct P sp = {2.0, 3};
  for (int i = 0; i < n; i++) {
    const double t = x[i] * x[i];
    s += t * *p * sp.a + row[0];
  }
  return s + g(x[0]);
}

#pragma mpiad differentiate wrt(x) replicated(x)
const double f2(double x) {
  const double c = 2.0 * x;
  return c * x;
}
