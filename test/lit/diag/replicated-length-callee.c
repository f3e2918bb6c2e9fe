// Length inference of a replicated array counts the accesses of callees, and
// stops where one cannot be bounded (issue 13): the marked function's own loop
// bounds w by d, but `pick` reads w[k] with k computed from data.  The error
// is at the parameter and asks for the length; a note shows the callee's
// access.  Nothing is written.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error: --implicit-check-not note:
// RUN: not test -e %t.out
// With the length given, the same file is accepted.
// RUN: %mpiad-emit %s -DGIVE_LENGTH -o - | FileCheck --check-prefix=GIVEN %s
// GIVEN: double *w_b_part = mpiad_alloc_zeroed((2 * d),

#include <mpi.h>

static double pick(const double *w, const double *xi, int d);

#ifdef GIVE_LENGTH
#pragma mpiad differentiate wrt(w) replicated(w[2 * d], d) varying(x, nlocal)
#else
#pragma mpiad differentiate wrt(w) replicated(w, d) varying(x, nlocal)
#endif
// CHECK: {{.*}}replicated-length-callee.c:[[@LINE+1]]:27: error: cannot infer the length of replicated array 'w' (from 'w[k]'); write replicated(w[LENGTH]) in the pragma
double loss(const double *w, const double *x, int nlocal, int d, MPI_Comm comm) {
  double reg = 0, l = 0, g;
  for (int j = 0; j < d; j++)
    reg += w[j] * w[j];
  for (int i = 0; i < nlocal; i++)
    l += pick(w, &x[i * d], d);
  MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g + reg;
}

static double pick(const double *w, const double *xi, int d) {
  int k = (int)(xi[0] * d) % (2 * d);
  // CHECK: {{.*}}replicated-length-callee.c:[[@LINE+1]]:10: note: the extent of this use cannot be bounded by loop counters and unchanged parameters
  return w[k] * xi[1];
}
