// The pragma must be followed by a function definition (a declaration or a variable does not do).
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

// CHECK: {{.*}}pragma-not-before-function.c:[[@LINE+1]]:9: error: '#pragma mpiad differentiate' must be followed by a function definition
#pragma mpiad differentiate wrt(x)
double g;
double f(double x) { return x * g; }

// CHECK: {{.*}}pragma-not-before-function.c:[[@LINE+1]]:9: error: '#pragma mpiad differentiate' must be followed by a function definition
#pragma mpiad differentiate wrt(y)
double h(double y);
