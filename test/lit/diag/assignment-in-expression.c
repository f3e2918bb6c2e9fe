// An assignment used as a value.
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
  double y, z;
  // CHECK: {{.*}}assignment-in-expression.c:[[@LINE+1]]:16: error: assignment inside an expression is not supported in a differentiated function; write it as a separate statement
  z = 2.0 * (y = x * x);
  return z + y;
}
