// output(return) on a function returning void.
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

// CHECK: {{.*}}output-return-void.c:[[@LINE+1]]:43: error: output(return) needs a float or double return type
#pragma mpiad differentiate wrt(x) output(return)
void f(double *x) { x[0] = x[0] * x[0]; }
