// A clause whose argument list is not closed.
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

// CHECK: {{.*}}pragma-missing-paren.c:[[@LINE+1]]:34: error: expected ',' or ')' in '#pragma mpiad'
#pragma mpiad differentiate wrt(x
double f(double x) { return x * x; }
