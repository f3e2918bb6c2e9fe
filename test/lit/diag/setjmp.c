// setjmp/longjmp (non-local jumps). glibc spells setjmp as a macro for _setjmp.
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

#include <setjmp.h>

#pragma mpiad differentiate wrt(x)
double f(double x) {
  jmp_buf env;
  // CHECK: {{.*}}setjmp.c:[[@LINE+1]]:7: error: '{{_?}}setjmp' cannot be differentiated (non-local jumps)
  if (setjmp(env))
    return 0.0;
  return x * x;
}
