// Floating data read through a pointer kept in a struct field is a constant
// to mpiad.  With `a->r == r` (the caller set it so), E's gradient came out
// 0 without a word.  When the function differentiates an array of floating
// data, such a read is a located error (issue 21).  Scalar fields, and
// pointer fields in a function that differentiates no array, are fine; so is
// reading the field through a local pointer marked `#pragma mpiad
// inactive(m)`, the user's statement that the data is constant.  A local
// pointer without it is an error too (before, it was taken as that
// statement, and a field that pointed into r gave a zero gradient).
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// RUN: %mpiad-cc -DFINE -c %s -o %t.o

struct atoms {
  double *r;
  double *mass;
  double dt;
  int n;
};

#ifndef FINE
#pragma mpiad differentiate wrt(r) varying(r, a)
double E(const struct atoms *a, const double *r) {
  double e = 0.0;
  for (int i = 0; i < a->n; i++)
    // CHECK: struct-field-pointer.c:[[@LINE+1]]:10: error: floating-point data accessed through the pointer field 'a->r' counts as a constant, which is wrong if it points into 'r' or another differentiated array; pass the array as a parameter and use it there, or, if it is constant data, read it through a local pointer marked so (const double *m = a->r; #pragma mpiad inactive(m))
    e += a->r[i] * a->r[i] + r[i];
  return e;
}
#endif

#ifndef FINE
#pragma mpiad differentiate wrt(r) varying(r, a)
double L(const struct atoms *a, const double *r) {
  // CHECK: struct-field-pointer.c:[[@LINE+1]]:17: error: pointer 'm' is set from the pointer field 'a->mass', whose data mpiad counts as a constant; that is wrong if it points into 'r' or another array whose values depend on the inputs: pass the array as a parameter, or, if its data is constant, say so with #pragma mpiad inactive(m)
  const double *m = a->mass;
  double e = 0.0;
  for (int i = 0; i < a->n; i++)
    e += 0.5 * m[i] * r[i] * r[i];
  return e;
}
#endif

/* Fine: scalar field; pointer field read through a local pointer that the
   user marks constant. */
#pragma mpiad differentiate wrt(r) varying(r, a)
double K(const struct atoms *a, const double *r) {
  const double *m = a->mass;
#pragma mpiad inactive(m)
  double e = 0.0;
  for (int i = 0; i < a->n; i++)
    e += 0.5 * m[i] * r[i] * r[i] * a->dt;
  return e;
}

/* Fine: no differentiated array (a scalar input only). */
#pragma mpiad differentiate wrt(s) varying(s, a)
double S(const struct atoms *a, double s) {
  double e = 0.0;
  for (int i = 0; i < a->n; i++)
    e += s * a->mass[i];
  return e;
}
