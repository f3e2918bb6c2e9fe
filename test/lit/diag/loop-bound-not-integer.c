// Found by test/random/mutate_inputs.py (seed 2, mutant 1267): a loop bound
// that is a pointer (`j < NULL`, C accepts it with a warning) was taken as
// the length of the replicated array w, and the generated C passed NULL to
// mpiad_alloc_zeroed and started the reversed loop at `NULL - 1`: it did not
// compile.  Loops with bounds that are not integers are no longer taken as
// counted loops; the length of w is then unknown, a located error.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
#include <mpi.h>
#include <stddef.h>

#pragma mpiad differentiate wrt(w) replicated(w) varying(x, n)
// CHECK: loop-bound-not-integer.c:[[@LINE+5]]:23: warning: ordered comparison between pointer and integer
// CHECK: loop-bound-not-integer.c:[[@LINE+1]]:26: error: cannot infer the length of replicated array 'w' (from 'w[j]'); write replicated(w[LENGTH]) in the pragma
double fit(const double *w, const double *x, int n) {
  double local = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < NULL; j++)
      local += w[j] * x[i];
  return local;
}
