// A checkpointed loop's buffers are allocated before it: the snapshots
// copy them, and re-run steps must find the same memory.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <stdlib.h>

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++) {
    // CHECK: {{.*}}checkpoint-malloc.c:[[@LINE+1]]:13: error: 'malloc' inside a checkpointed loop: allocate the loop's buffers before it
    double *w = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
      w[i] = u[i] * u[i];
    for (int i = 0; i < n; i++)
      u[i] = w[i];
    free(w);
  }
}
