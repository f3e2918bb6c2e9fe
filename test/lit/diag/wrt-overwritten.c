// A wrt parameter written in place must also be an output.
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
double f(double *x, int n) {
  for (int i = 0; i < n; i++)
    // CHECK: {{.*}}wrt-overwritten.c:[[@LINE+1]]:10: error: wrt parameter 'x' is overwritten here; list it in output(...) as well (updated in place)
    x[i] = x[i] * x[i];
  return x[0];
}
