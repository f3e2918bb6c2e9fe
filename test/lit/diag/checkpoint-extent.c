// The snapshot must hold all the memory the loop changes: writes through a
// pointer derived from a parameter have no extent mpiad can tell.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  double *v = u + 1;
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      // CHECK: {{.*}}checkpoint-extent.c:[[@LINE+1]]:12: error: cannot tell how many elements of 'u' the checkpointed loop changes
      v[i] = v[i] * v[i];
}
