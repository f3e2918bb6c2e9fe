// goto and labels: both are pointed at.
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
  // CHECK: {{.*}}goto.c:[[@LINE+1]]:14: error: goto and labels cannot be differentiated; use structured control flow
  if (x > 0) goto done;
  x = x * x;
// CHECK: {{.*}}goto.c:[[@LINE+1]]:1: error: goto and labels cannot be differentiated; use structured control flow
done:
  return x;
}
