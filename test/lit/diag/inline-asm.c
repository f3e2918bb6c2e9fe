// Inline assembly.
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
double f(double x) {
  // CHECK: {{.*}}inline-asm.c:[[@LINE+1]]:3: error: inline assembly cannot be differentiated
  __asm__("nop");
  return x * x;
}
