// A call through a function pointer with a floating argument.
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
double f(double x, double (*g)(double)) {
  // CHECK: {{.*}}function-pointer.c:[[@LINE+1]]:10: error: call through a function pointer with floating-point arguments or result cannot be differentiated; call the function directly
  return g(x);
}
