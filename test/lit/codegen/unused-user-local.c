// A local the user never reads (`double u = 1;`) was copied into the
// adjoint, where the compiler warned a second time ("set but not used",
// naming mpiad-cc's temporary file; an error under -Werror).  The adjoint
// voids it: the only warning is the user's own, on the user's line.
//
// RUN: %mpiad-cc -Wall -Wextra -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: %mpiad-emit %s -o - | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double f_b(
// GEN: double u = 0;
// GEN-NEXT: (void)u;

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  // CHECK: unused-user-local.c:[[@LINE+1]]:10: warning: unused variable 'u'
  double u = 1;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
