// Data reached through a struct's pointer field carries no derivatives in
// mpiad (the field is opaque).  Where such data may be the same memory as
// an array that holds values depending on the inputs, the gradient would
// miss every path through the field, silently; both cases below gave a
// zero dtheta before they were errors:
//  - the field read directly (`s.p[i]`) while a local pointer loaded from
//    it is written with varied values (before, only wrt/output pointer
//    parameters counted as arrays the field might point into);
//  - two local pointers loaded from fields (`u = s.p; m = s.p;`), one
//    written and one read: pointers loaded from fields are one alias class;
//  - the same with an external function's result (`get_buf(n)`, a
//    workspace the library hands out);
//  - a pointer loaded from a field and only read, in a function with a wrt
//    array it may point into: an error unless marked inactive.
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *p;
} holder;

/* Forward mode shares the analysis (its tangent was zero too): the error
   comes once per pragma. */
#pragma mpiad differentiate wrt(theta) replicated(theta, n)
#pragma mpiad differentiate forward wrt(theta) replicated(theta, n)
double direct(double theta, int n, MPI_Comm comm) {
  holder s;
  s.n = n;
  s.p = malloc(n * sizeof(double));
  double *u = s.p;
  for (int i = 0; i < n; i++)
    u[i] = theta * (i + 1);
  double r = 0.0, t;
  for (int i = 0; i < n; i++)
    // CHECK: pointer-field-alias.c:[[@LINE+1]]:10: error: floating-point data accessed through the pointer field 's.p' counts as a constant, which is wrong if it points into 'u' or another differentiated array; pass the array as a parameter and use it there, or, if it is constant data, read it through a local pointer marked so (const double *m = s.p; #pragma mpiad inactive(m))
    r += s.p[i] * s.p[i];
  MPI_Allreduce(&r, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(s.p);
  return t;
}

#pragma mpiad differentiate wrt(theta) replicated(theta, n)
double loaded(double theta, int n, MPI_Comm comm) {
  holder s;
  s.n = n;
  s.p = malloc(n * sizeof(double));
  // CHECK: pointer-field-alias.c:[[@LINE+1]]:11: error: pointer 'u' carries derivatives but is assigned from storage without a shadow (the pointer field 's.p', whose data mpiad does not follow: pass the array itself as a parameter and use it there)
  double *u = s.p;
  for (int i = 0; i < n; i++)
    u[i] = theta * (i + 1);
  double r = 0.0, t;
  // CHECK: pointer-field-alias.c:[[@LINE+1]]:17: error: pointer 'm' carries derivatives but is assigned from storage without a shadow
  const double *m = s.p;
  for (int i = 0; i < n; i++)
    r += m[i] * m[i];
  MPI_Allreduce(&r, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  free(s.p);
  return t;
}

double *get_buf(int n);

#pragma mpiad differentiate wrt(theta) replicated(theta, n)
double external(double theta, int n, MPI_Comm comm) {
  // CHECK: pointer-field-alias.c:[[@LINE+1]]:11: error: pointer 'u' carries derivatives but is assigned from storage without a shadow (the external function 'get_buf', whose data mpiad does not follow: pass the array itself as a parameter and use it there)
  double *u = get_buf(n);
  for (int i = 0; i < n; i++)
    u[i] = theta * (i + 1);
  // CHECK: pointer-field-alias.c:[[@LINE+1]]:17: error: pointer 'm' carries derivatives but is assigned from storage without a shadow (the external function 'get_buf'
  const double *m = get_buf(n);
  double r = 0.0, t;
  for (int i = 0; i < n; i++)
    r += m[i] * m[i];
  MPI_Allreduce(&r, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}

typedef struct {
  double *a;
} box;

#pragma mpiad differentiate wrt(x) output(x) varying(x) replicated(n)
void scaled(double *x, const box *bx, int n) {
  // CHECK: pointer-field-alias.c:[[@LINE+1]]:17: error: pointer 'm' is set from the pointer field 'bx->a', whose data mpiad counts as a constant; that is wrong if it points into 'x' or another array whose values depend on the inputs: pass the array as a parameter, or, if its data is constant, say so with #pragma mpiad inactive(m)
  const double *m = bx->a;
  for (int i = 0; i < n; i++)
    x[i] = x[i] * m[i];
}

