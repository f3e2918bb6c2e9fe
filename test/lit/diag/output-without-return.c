// A floating return value left out of output(...) is not differentiated: a
// warning at the clause, and the adjoint is generated (without a seed).
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=GEN --input-file %t.c %s
#pragma mpiad differentiate wrt(u) varying(u) replicated(n) output(u)
// CHECK: output-without-return.c:[[@LINE-1]]:68: warning: the return value of 'step' is not an output: output(...) does not list 'return', so the adjoint takes no seed for it; write output(return, ...) if the returned value is (part of) the objective [-Wmpiad-unused-return]
double step(double *u, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    u[i] = u[i] * u[i];
    s += u[i];
  }
  return s;
}
// GEN: double step_b(double *u, double *u_b, int n) {

// output(return, u) says it: no warning.
// RUN: sed 's/output(u)$/output(return, u)/' %s > %t2.c
// RUN: %mpiad-emit %t2.c -o /dev/null 2>&1 | FileCheck --check-prefix=QUIET --allow-empty %s
// QUIET-NOT: warning

// -Wno-mpiad-unused-return silences it.
// RUN: %mpiad-emit %s -Wno-mpiad-unused-return -o %t3.c 2>&1 | FileCheck --check-prefix=QUIET --allow-empty %s
