// The only clause of '#pragma mpiad checkpoint' is snapshots=K, K a
// positive integer (or a name in scope at the loop).
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  // CHECK: {{.*}}checkpoint-clause.c:[[@LINE+1]]:28: error: expected 'snapshots' in '#pragma mpiad checkpoint(snapshots=K)'
  #pragma mpiad checkpoint(snaps=3)
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
  // CHECK: {{.*}}checkpoint-clause.c:[[@LINE+1]]:38: error: the number of snapshots must be an integer from 1 to 100000
  #pragma mpiad checkpoint(snapshots=0)
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
  // CHECK: {{.*}}checkpoint-clause.c:[[@LINE+1]]:38: error: expected a number of snapshots
  #pragma mpiad checkpoint(snapshots=-2)
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
}
