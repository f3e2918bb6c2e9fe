// A library sort of values that carry derivatives (Pacheco's odd-even
// transposition sort starts with qsort of the local keys), and an external
// function passed such data: located errors that say what to write.  A
// qsort of data that carries nothing is fine.
//
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>
#include <stdlib.h>

int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void fill(double *v, int n);

#pragma mpiad differentiate wrt(a) output(a) varying(a)
void sorted(double *a, int n, double *passive) {
  // CHECK: {{.*}}qsort-active.c:[[@LINE+1]]:3: error: mpiad cannot follow the permutation that 'qsort' applies to 'a', whose values carry derivatives: sort with a function defined in this file (an insertion sort, or a merge of sorted runs) so that the adjoint can move each derivative with its value
  qsort(a, n, sizeof(double), cmp);
  qsort(passive, n, sizeof(double), cmp);
  for (int i = 0; i < n; i++)
    a[i] = a[i] * a[i] + passive[i];
}

#pragma mpiad differentiate wrt(a) output(a) varying(a)
void filled(double *a, int n) {
  // CHECK: {{.*}}qsort-active.c:[[@LINE+1]]:3: error: external function 'fill' is passed the data of 'a', whose values carry derivatives, and mpiad cannot see what it reads or writes there: define the function in this file, or add a rule (docs/rules.md): 'inactive fill' if it only reads the data (an output function), a comm rule for a communication wrapper
  fill(a, n);
  for (int i = 0; i < n; i++)
    a[i] = a[i] * a[i];
}
