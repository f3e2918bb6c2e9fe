// The comma operator is lowered where its left side runs once, in full
// (exec/comma_assign_lowered.c); inside an operand of &&, || or ?: the left
// side may not run, and that stays an error.
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
double f(double x, int k) {
  // CHECK: {{.*}}comma-operator.c:[[@LINE+1]]:34: error: the comma operator inside an operand of &&, || or ?: is not supported in a differentiated function (its left side may not run); write it as separate statements
  double y = k > 0 ? (x = x * 2.0, x + 1.0) : x;
  return y;
}
