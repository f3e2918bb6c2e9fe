// A pointer of another type holding the address of an array whose values
// depend on the inputs (`char *raw = (char *)u;`, byte offsets as codes
// that compute MPI displacements write them): data read back through it,
// `*(double *)(raw + k)`, was a constant, and the gradient was zero without
// a word.  Now a located error that says to index the array itself.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(u) varying(u) replicated(n)
#pragma mpiad differentiate forward wrt(u) varying(u) replicated(n)
double bytes(const double *u, int n, MPI_Comm comm) {
  double s = 0.0, t;
  // CHECK: pointer-other-type.c:[[@LINE+1]]:15: error: pointer 'raw' holds the address of 'u', whose values depend on the inputs, as another type; mpiad does not follow data through it: index 'u' itself
  const char *raw = (const char *)u;
  for (int i = 0; i < n; i++)
    s += *(const double *)(raw + i * sizeof(double));
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
