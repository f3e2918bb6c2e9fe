// An integer parameter cannot be an independent.
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

// CHECK: {{.*}}wrt-integer.c:[[@LINE+1]]:33: error: wrt parameter 'n' must be a float/double scalar, a pointer to float/double, a row-pointer array (double **), or a pointer to structs with float/double fields
#pragma mpiad differentiate wrt(n)
double f(double x, int n) { return x * n; }
