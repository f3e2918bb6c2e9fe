// A pointer parameter that would need a shadow (derivatives flow through it) but is neither in wrt nor in output.
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

#pragma mpiad differentiate wrt(x)
// CHECK: {{.*}}pointer-without-shadow.c:[[@LINE+1]]:28: error: parameter 'work' carries derivatives but has no shadow; add it to wrt(...) or output(...), or to scratch(...) if it is a work array whose contents on entry and exit do not matter
double f(double x, double *work) {
  work[0] = x * x;
  return work[0];
}
