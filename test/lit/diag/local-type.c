// A type defined inside a differentiated function is rejected at its
// definition: the generated functions declare their variables at the top and
// come after the primal, where the type is not visible.  A struct initialiser
// list that reads variables is rejected at the declaration.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// CHECK: local-type.c:[[@LINE+11]]:10: error: type 'struct P' is defined inside a differentiated function; define it at file scope
// CHECK: local-type.c:[[@LINE+15]]:18: error: type 'cell' is defined inside a differentiated function; define it at file scope
// CHECK: local-type.c:[[@LINE+21]]:12: error: initialiser list of struct 'q' reads variables; assign its fields after the declaration

struct Q { /* no float/double field: its list is assigned whole */
  int a;
  int k;
};

#pragma mpiad differentiate wrt(x) replicated(x)
double f(const double *x) {
  struct P {
    double a;
    int k;
  };
  struct P p = {2.0, 3};
  typedef double cell;
  cell c = x[1];
  return x[0] * p.a * p.k + c;
}

#pragma mpiad differentiate wrt(x) replicated(x, n)
double g(const double *x, int n) {
  struct Q q = {1.0, n};
  return x[0] * q.a * q.k;
}
