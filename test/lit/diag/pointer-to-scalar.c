// A pointer variable set to the address of a floating scalar is a second name
// for it that the analyses do not follow: a located error. (It used to be
// accepted and gave dJ/dx0 = 0.68 instead of 1.68 for this function.)
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#pragma mpiad differentiate wrt(x) varying(x) replicated(n)
double f(const double *x, int n) {
  double s = 0.0;
  // CHECK: pointer-to-scalar.c:[[@LINE+1]]:11: error: pointer 'v' is set to the address of the scalar 's'; the analyses do not follow pointers to scalars: use 's' directly, or make it a one-element array (double s[1])
  double *v = &s;
  for (int i = 0; i < n; i++)
    *v += x[i] * x[i];
  v[0] = v[0] * 2.0;
  return s * x[0];
}
