// A recursive callee; the calls that lead to it are notes.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// An existing output file is left untouched.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>/dev/null
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: {{^keep$}}
// KEEP-NOT: {{.}}

// CHECK: {{.*}}recursion.c:[[@LINE+1]]:8: error: recursive function 'r' cannot be differentiated yet
double r(double x, int n) {
  if (n == 0)
    return x;
  // CHECK: {{.*}}recursion.c:[[@LINE+1]]:14: note: in the call to 'r'
  double y = r(x * x, n - 1);
  return y;
}

#pragma mpiad differentiate wrt(x)
double f(double x, int n) {
  // CHECK: {{.*}}recursion.c:[[@LINE+1]]:14: note: in the call to 'r'
  double y = r(x, n);
  return y;
}
