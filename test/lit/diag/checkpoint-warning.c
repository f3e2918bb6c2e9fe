// '#pragma mpiad checkpoint' is accepted but not implemented yet: a warning says
// that every step is recorded, and the adjoint is written (taping each step).
//
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error: --implicit-check-not warning:
// RUN: FileCheck --check-prefix=GEN --input-file %t.c %s

// GEN: {{^ *}}//{{ +}}#pragma mpiad checkpoint
// GEN: {{^}}void f_b(double *u, double *u_b, int n, int steps) {
// GEN: mpiad_push_f64(u[i]);
// GEN: u[i] = mpiad_pop_f64();

#pragma mpiad differentiate wrt(u) output(u)
void f(double *u, int n, int steps) {
  // CHECK: {{.*}}checkpoint-warning.c:[[@LINE+1]]:3: warning: '#pragma mpiad checkpoint' is not implemented yet: every step of this loop is recorded
  #pragma mpiad checkpoint
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
}
