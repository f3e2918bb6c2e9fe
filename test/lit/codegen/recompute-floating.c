// A floating local declared in a loop body and assigned once from a few
// operations on values that nothing changes afterwards is computed again by
// the reverse of the body instead of being pushed at every iteration
// (Recompute.cpp).  When the values it reads change later (in the same
// loop, in a later loop, or earlier in the body of an enclosing loop), or
// it calls a function, it is still recorded.  exec/recompute_floating.c
// runs these adjoints.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <math.h>
#include <mpi.h>

// The misfit of samples/halo2d: d is computed again, nothing is pushed.
#pragma mpiad differentiate wrt(u) varying(u)
double misfit(const double *u, const double *uobs, int nx, int ny) {
  int ys = ny + 2;
  double local = 0.0;
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
      local += d * d;
    }
  return local;
}
// CHECK-LABEL: double misfit_b(
// CHECK: /* forward sweep */
// CHECK-NOT: mpiad_push
// CHECK: /* reverse sweep */
// CHECK: for (int j = ny; j >= 1; j--) {
// CHECK-NEXT: d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
// CHECK-NEXT: d_b += local_b * d;
// CHECK-NOT: mpiad_pop
// CHECK: return mpiad_ret;

// An integer of the body recomputed first, then the floating value from it.
#pragma mpiad differentiate wrt(x) varying(x)
double fromIndex(const double *x, int n, double r) {
  double s = 0.0;
  for (int i = 1; i < n; i++) {
    int c = i - 1;
    double a = r * (x[c] + x[i]);
    s += a * a;
  }
  return s;
}
// CHECK-LABEL: double fromIndex_b(
// CHECK: /* forward sweep */
// CHECK-NOT: mpiad_push
// CHECK: /* reverse sweep */
// CHECK: for (int i = n - 1; i >= 1; i--) {
// CHECK-NEXT: c = i - 1;
// CHECK-NEXT: a = r * (x[c] + x[i]);
// CHECK-NOT: mpiad_pop
// CHECK: return mpiad_ret;

// The array it reads is written later in the same body: recorded.
#pragma mpiad differentiate wrt(x) output(x) varying(x)
void sameBody(double *x, int n) {
  for (int i = 0; i < n; i++) {
    double a = x[i] + 1.0;
    x[i] = a * a;
  }
}
// CHECK-LABEL: void sameBody_b(
// CHECK: mpiad_push_f64(a);
// CHECK: a = mpiad_pop_f64();

// Written in a later loop: recorded.
#pragma mpiad differentiate wrt(x0) varying(x0) scratch(x[n])
double laterLoop(const double *x0, double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    x[i] = x0[i];
  for (int i = 0; i < n; i++) {
    double a = 2.0 * x[i];
    s += a * a;
  }
  for (int i = 0; i < n; i++)
    x[i] = 0.0;
  return s;
}
// CHECK-LABEL: double laterLoop_b(
// CHECK: mpiad_push_f64(a);
// CHECK: a = mpiad_pop_f64();

// Written earlier in the body of the enclosing time loop: recorded.
#pragma mpiad differentiate wrt(x) output(return, x) varying(x)
double inTimeLoop(double *x, int n, int T) {
  double s = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * x[i] * x[i];
    for (int i = 0; i < n; i++) {
      double a = x[i] - 1.0;
      s += a * a;
    }
  }
  return s;
}
// CHECK-LABEL: double inTimeLoop_b(
// CHECK: mpiad_push_f64(a);
// CHECK: a = mpiad_pop_f64();

// A call in the value: recorded.
#pragma mpiad differentiate wrt(x) varying(x)
double withCall(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double a = exp(x[i]);
    s += a * a;
  }
  return s;
}
// CHECK-LABEL: double withCall_b(
// CHECK: mpiad_push_f64(a);
// CHECK: a = mpiad_pop_f64();
