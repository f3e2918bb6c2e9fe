// -c differentiates and compiles to an object holding both the primal and its
// adjoint; -o names it.
//
// RUN: rm -f %t.o
// RUN: %mpiad-cc -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s

// CHECK-DAG: T dot{{$}}
// CHECK-DAG: T dot_b{{$}}

#pragma mpiad differentiate wrt(x) varying(x)
double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i] * y[i];
    s += t * t;
  }
  return s;
}
