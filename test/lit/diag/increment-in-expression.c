// ++ and -- inside an expression are accepted where the statement runs its
// expression once, in full (exec/increment_in_expression.c).  They stay
// errors where that order cannot be kept: a second use of the variable in
// the same statement (unsequenced in C), an operand of
// && or ?: (it may not run; also in a loop condition), and a variable that
// is not an integer.
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
#pragma mpiad differentiate wrt(x) varying(x, n)
double f1(const double *x, int n) {
  double s = 0.0;
  int i = n - 2;
  // CHECK: {{.*}}increment-in-expression.c:[[@LINE+1]]:11: error: 'i' is incremented or decremented and also used elsewhere in this statement, whose order C leaves unspecified; split the statement
  s += x[i++] * x[i];
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x, n)
double f2(const double *x, int n) {
  double s = 0.0;
  int j = 0;
  // CHECK: {{.*}}increment-in-expression.c:[[@LINE+1]]:22: error: '++' inside an expression is not supported here in a differentiated function (an operand of &&, || or ?:, or on a value that is not an integer variable); write it as a separate statement
  while (j < n && x[j++] > 0.0)
    s += 1.0;
  return s;
}

#pragma mpiad differentiate wrt(x) varying(x, n)
double f3(const double *x, int n) {
  int j = 0;
  // CHECK: {{.*}}increment-in-expression.c:[[@LINE+1]]:25: error: '++' inside an expression is not supported here
  double s = n > 2 ? x[j++] : 0.0;
  return s + j;
}

#pragma mpiad differentiate wrt(x) varying(x, n)
double f4(const double *x, int n) {
  double d = n;
  // CHECK: {{.*}}increment-in-expression.c:[[@LINE+1]]:15: error: '++' inside an expression is not supported here
  double s = d++ * x[0];
  return s + d;
}
