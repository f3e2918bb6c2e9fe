// A global variable that would carry derivatives.
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

double g_acc;

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // CHECK: {{.*}}active-global.c:[[@LINE+1]]:3: error: global variable 'g_acc' would carry derivatives; pass it as a parameter instead
  g_acc = x * x;
  return g_acc;
}
