// An active argument passed to a variadic function defined in the file.
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

#include <stdarg.h>

double vsum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = va_arg(ap, double);
  va_end(ap);
  return s;
}

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // CHECK: {{.*}}variadic-call.c:[[@LINE+1]]:22: error: floating-point argument to variadic function 'vsum' cannot be differentiated
  double y = vsum(1, x);
  return y;
}
