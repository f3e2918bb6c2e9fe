// switch is not supported yet.
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
double f(double x, int k) {
  // CHECK: {{.*}}switch.c:[[@LINE+1]]:3: error: switch statements are not supported in a differentiated function yet; use if/else
  switch (k) {
  case 0:
    return x;
  default:
    return 2 * x;
  }
}
