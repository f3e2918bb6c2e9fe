// wrt(...) names something that is not a parameter.
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

// CHECK: {{.*}}wrt-not-a-parameter.c:[[@LINE+1]]:33: error: 'z' in wrt(...) is not a parameter of 'f'
#pragma mpiad differentiate wrt(z)
double f(double x) { return x * x; }
