// A variable-length array: one error, no follow-up errors about its uses.
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
double f(const double *x, int n) {
  // CHECK: {{.*}}vla.c:[[@LINE+1]]:10: error: variable-length array 't' is not supported in a differentiated function; use malloc
  double t[n];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  return t[0];
}
