// The same clause twice: the second one is pointed at.
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

// CHECK: {{.*}}pragma-clause-twice.c:[[@LINE+1]]:36: error: clause 'wrt' given twice
#pragma mpiad differentiate wrt(x) wrt(y)
double f(double x, double y) { return x * y; }
