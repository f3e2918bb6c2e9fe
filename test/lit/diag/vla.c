// Variable-length arrays that mpiad does not lower to malloc'd buffers:
// one error each, at the declaration or at the use, and no follow-up
// errors about the array's uses. (One-dimensional VLAs are supported: see
// exec/vla.c.)
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
double two(const double *x, int n) {
  // CHECK: {{.*}}vla.c:[[@LINE+1]]:10: error: variable-length array 't' with more than one dimension is not supported in a differentiated function; use malloc
  double t[n][n];
  for (int i = 0; i < n; i++)
    t[i][0] = x[i];
  return t[0][0];
}

#pragma mpiad differentiate wrt(x)
double bytes(const double *x, int n) {
  double t[n];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  // CHECK: {{.*}}vla.c:[[@LINE+1]]:23: error: variable-length array 't' used whole (sizeof or &) is not supported in a differentiated function; use malloc
  return t[0] * (int)(sizeof t / sizeof t[0]);
}

#pragma mpiad differentiate wrt(x)
double side(const double *x, int n) {
  // CHECK: {{.*}}vla.c:[[@LINE+1]]:10: error: variable-length array 't' whose size has side effects is not supported in a differentiated function; use malloc
  double t[n++];
  t[0] = x[0];
  return t[0] * n;
}
