// A length written in a clause is evaluated on entry: it may name integer
// globals (issue 40), but not one the function changes, nor a variable
// that is no integer of the file.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

int nx;
double scale;

// CHECK: length-global-changed.c:[[@LINE+1]]:46: error: 'nx' in the length of scratch(w[...]) is a global that 'grow' changes; the length is taken on entry: write it with values that do not change
#pragma mpiad differentiate wrt(x) scratch(w[nx]) varying(x)
double grow(const double *x, double *w, const int *p) {
  nx = nx + 1;
  double s = 0.0;
  for (int i = 0; i < 4; i++) {
    w[p[i]] = x[i];
    s += w[i] * x[i];
  }
  return s;
}

// CHECK: length-global-changed.c:[[@LINE+1]]:46: error: 'scale' in the length of scratch(w[...]) is neither an integer parameter of 'g' nor an integer constant or global of the file
#pragma mpiad differentiate wrt(x) scratch(w[scale]) varying(x)
double g(const double *x, double *w, const int *p) {
  double s = 0.0;
  for (int i = 0; i < 4; i++) {
    w[p[i]] = x[i];
    s += w[i] * x[i];
  }
  return s;
}
