// The adjoint's name (here the default f_b) is already taken by a function of the
// file: a located error at the pragma, not a C compiler error in a temporary file
// after the fact (with -c) or a generated file that does not compile.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

double f_b(double x) { return x; }

// CHECK: {{.*}}adjoint-name-clash.c:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}'f_b'
#pragma mpiad differentiate wrt(x)
double f(double x) { return x * x; }
