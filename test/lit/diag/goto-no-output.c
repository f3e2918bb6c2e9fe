// goto is rejected with a located error, and no output file is written.
// RUN: rm -f %t.c
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s
// RUN: not test -e %t.c
// CHECK: {{.*}}.c:[[@LINE+4]]:14: error: goto and labels cannot be differentiated; use structured control flow

#pragma mpiad differentiate wrt(x) varying(x)
double f(double x) {
  if (x > 0) goto out;
  x = x * x;
out:
  return x;
}
