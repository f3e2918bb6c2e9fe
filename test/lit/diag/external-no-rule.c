// An external function without a derivative rule, called on an active value.
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

double mystery(double);

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // CHECK: {{.*}}external-no-rule.c:[[@LINE+1]]:10: error: no derivative known for external function 'mystery' (its argument depends on 'x'); add a math rule to rules/ or define the function in this file
  return mystery(x);
}
