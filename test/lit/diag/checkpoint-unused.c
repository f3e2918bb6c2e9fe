// A checkpoint pragma in a function that nothing differentiates has no
// effect: a warning at the pragma says so, and the file is still written.
//
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: test -s %t.c

void plain(double *u, int n, int steps) {
  // CHECK: {{.*}}checkpoint-unused.c:[[@LINE+1]]:11: warning: '#pragma mpiad checkpoint' has no effect: it is not inside a function that is differentiated
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
}

#pragma mpiad differentiate wrt(x)
double g(double x) { return x * x; }
