// '#pragma mpiad checkpoint' must come right before a for loop.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  int t = 0;
  // CHECK: {{.*}}checkpoint-not-a-loop.c:[[@LINE+1]]:11: error: '#pragma mpiad checkpoint' must be followed by a for loop
  #pragma mpiad checkpoint
  while (t < steps) {
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
    t++;
  }
}
