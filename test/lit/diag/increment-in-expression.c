// ++ used inside an expression.
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
double f(const double *x, int n) {
  double s = 0.0;
  int i = 0;
  while (i < n)
    // CHECK: {{.*}}increment-in-expression.c:[[@LINE+1]]:13: error: '++' inside an expression is not supported in a differentiated function; write it as a separate statement
    s += x[i++];
  return s;
}
