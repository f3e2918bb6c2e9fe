// Errors of the scratch(...) clause, each at its name in the pragma or at
// the parameter.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:

// CHECK: scratch-clause.c:[[@LINE+1]]:55: error: 'tmp' in scratch(...) is not a parameter of 'a'
#pragma mpiad differentiate wrt(x) varying(x) scratch(tmp)
double a(const double *x, double *w) { w[0] = x[0]; return w[0]; }

// CHECK: scratch-clause.c:[[@LINE+1]]:55: error: 'w' is a work array in scratch(...) and also an input or output; a scratch array's contents on entry and exit do not matter, so keep only one of the clauses
#pragma mpiad differentiate wrt(x) varying(x) scratch(w) output(return, w)
double b(const double *x, double *w) { w[0] = x[0]; return w[0]; }

// CHECK: scratch-clause.c:[[@LINE+1]]:55: error: scratch parameter 'k' must be a non-const pointer to float/double
#pragma mpiad differentiate wrt(x) varying(x) scratch(k)
double c(const double *x, int *k) { return x[k[0]]; }

// CHECK: scratch-clause.c:[[@LINE+1]]:60: error: cannot infer the length of scratch array 'w' (from 'w[idx[i]]'); write scratch(w[LENGTH]) in the pragma
#pragma mpiad differentiate wrt(x) varying(x, idx) scratch(w)
double d(const double *x, double *w, const int *idx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    w[idx[i]] = x[i] * x[i];
    s += w[idx[i]];
  }
  return s;
}
