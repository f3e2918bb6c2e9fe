// The comma operator.
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

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // CHECK: {{.*}}comma-operator.c:[[@LINE+1]]:26: error: the comma operator is not supported in a differentiated function
  double y = (x = x * 2.0, x + 1.0);
  return y;
}
