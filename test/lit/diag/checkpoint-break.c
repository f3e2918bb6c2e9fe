// A checkpointed loop cannot leave early: the schedule runs its steps in an
// order of its own.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  #pragma mpiad checkpoint
  // CHECK: {{.*}}checkpoint-break.c:[[@LINE+1]]:3: error: a checkpointed loop cannot contain break, continue or return: the schedule runs its steps in an order of its own
  for (int t = 0; t < steps; t++) {
    if (u[0] > 10.0)
      break;
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
  }
}
