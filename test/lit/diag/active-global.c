// Globals that carry derivatives: a scalar or a fixed-size array has a
// file-scope adjoint (exec/global_state.c); these are the located errors.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// An existing output file is left untouched.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>/dev/null
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: {{^keep$}}
// KEEP-NOT: {{.}}
// The scalar alone is fine.
// RUN: %mpiad-emit -DFINE %s -o - | FileCheck --check-prefix=FINE %s
// FINE: static double g_acc_b;
// FINE: g_acc_b = 0;

double g_acc;

#pragma mpiad differentiate wrt(x)
double f(double x) {
  g_acc = x * x;
  return g_acc;
}

#ifndef FINE
double *g_buf; /* set by the caller to a buffer of unknown length */

#pragma mpiad differentiate wrt(x) varying(x)
double p(const double *x) {
  // CHECK: {{.*}}active-global.c:[[@LINE+1]]:3: error: global pointer 'g_buf' would carry derivatives; mpiad gives a global pointer a shadow only when every assignment of it in this file allocates it, with one size written with names of the file, and its address is never taken (here this file never allocates it); else pass it as a parameter
  g_buf[0] = x[0] * x[1];
  return g_buf[0];
}

/* A local named like the adjoint of a global. */
double h;
#pragma mpiad differentiate wrt(x) varying(x)
double q(const double *x) {
  // CHECK: {{.*}}active-global.c:[[@LINE+1]]:10: error: 'h_b' has the name of the adjoint of the global 'h'; rename it
  double h_b = 2.0;
  h = x[0] * h_b;
  return h * h;
}
#endif
