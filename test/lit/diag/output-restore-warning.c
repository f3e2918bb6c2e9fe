// When the reverse sweep restores an output's old values and the output's
// length cannot be inferred, the tool says that F_b does not leave the final
// values (it leaves those the reverse sweep restored).
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// CHECK: output-restore-warning.c:[[# @LINE + 2]]:16: warning: after f_b returns, output 'u' does not hold its final values: the adjoint restores the old values its reverse sweep reads, and cannot put the final values back (its length cannot be inferred); call f if you need them
#pragma mpiad differentiate wrt(u) output(u) varying(u)
void f(double *u, const int *idx, int n) {
  for (int i = 0; i < n; i++)
    u[idx[i]] = u[idx[i]] * u[idx[i]];
}
