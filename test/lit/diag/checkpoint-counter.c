// A checkpointed loop counts with a step of 1, its counter declared in the
// loop.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  int t;
  #pragma mpiad checkpoint
  // CHECK: {{.*}}checkpoint-counter.c:[[@LINE+1]]:8: error: the counter of a checkpointed loop must be declared in the loop: for (int t = ...; ...)
  for (t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
  #pragma mpiad checkpoint
  // CHECK: {{.*}}checkpoint-counter.c:[[@LINE+1]]:3: error: a checkpointed loop must count with a step of 1: for (int i = a; i < b; i++), the body changing neither i, a nor b
  for (int s = 0; s < steps; s += 2)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
}
