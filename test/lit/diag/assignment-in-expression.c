// An assignment used as a value is lowered where it runs once, in full
// (exec/comma_assign_lowered.c); inside an operand of &&, || or ?: it may not
// run, and that stays an error.  So does a call to a same-file function
// there (it would be hoisted before the test).
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

static double g(double y) { return y * y; }

#pragma mpiad differentiate wrt(x)
double f(double x, int k) {
  double y = 0.0, z;
  // CHECK: {{.*}}assignment-in-expression.c:[[@LINE+1]]:24: error: assignment inside an operand of &&, || or ?: is not supported in a differentiated function (it may not run); write it as a separate statement
  z = k > 0 ? 2.0 * (y = x * x) : x;
  // CHECK: {{.*}}assignment-in-expression.c:[[@LINE+1]]:19: error: a call to a same-file function inside an operand of &&, || or ?: is not supported in a differentiated function (it is evaluated before the test, but C may skip it); assign it to a variable under an if first
  while (k > 0 && g(z) < 4.0)
    z = z * 1.5;
  return z + y;
}
