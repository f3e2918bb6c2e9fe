// When the reverse sweep restores an output's old values and the output's
// length cannot be inferred, the tool says that F_b leaves the old values.
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// CHECK: output-restore-warning.c:[[# @LINE + 2]]:16: warning: after f_b returns, output 'u' holds its values from before the call (the adjoint restores them and its length cannot be inferred)
#pragma mpiad differentiate wrt(u) output(u) varying(u)
void f(double *u, const int *idx, int n) {
  for (int i = 0; i < n; i++)
    u[idx[i]] = u[idx[i]] * u[idx[i]];
}
