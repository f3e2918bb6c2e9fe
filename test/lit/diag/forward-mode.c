// Forward (tangent) mode is not implemented yet.
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

// CHECK: {{.*}}forward-mode.c:[[@LINE+1]]:29: error: forward (tangent) mode is not supported yet; use 'reverse'
#pragma mpiad differentiate forward wrt(x)
double f(double x) { return x * x; }
