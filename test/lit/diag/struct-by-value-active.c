// A struct whose fields carry derivatives, passed by value to a function of
// the file (`helper(*p, x)`, as programs pass their parameter structs): the
// callee's copy has no shadow, and every derivative through its fields was
// lost (p_b->a = 0, silently; issue 40).  Now a located error that says
// what to write, in reverse and forward mode.  The same helper taking a
// pointer is fine.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: %mpiad-cc -DFINE -c %s -o %t.o

typedef struct {
  int n;
  double a;
} P;

#ifndef FINE
static double helper(const P p, const double *x) {
  double s = 0.0;
  for (int i = 0; i < p.n; i++)
    s += p.a * x[i];
  return s;
}

#pragma mpiad differentiate wrt(p, x) varying(p, x)
// CHECK: {{.*}}struct-by-value-active.c:[[@LINE+1]]:55: error: '*p' passes the struct 'p', whose fields carry derivatives, by value to 'helper': the derivatives of its fields cannot come back through the copy; make the parameter 'p' of 'helper' a pointer (const P *p) and pass the struct's address
double f(const P *p, const double *x) { return helper(*p, x); }

#pragma mpiad differentiate forward wrt(p, x) varying(p, x)
// CHECK: {{.*}}struct-by-value-active.c:[[@LINE+1]]:55: error: '*p' passes the struct 'p', whose fields carry derivatives, by value to 'helper'
double g(const P *p, const double *x) { return helper(*p, x); }

/* replicated(p) on such a struct was accepted. */
#pragma mpiad differentiate wrt(p, x) replicated(p) varying(x)
// CHECK: {{.*}}struct-by-value-active.c:[[@LINE+1]]:55: error: '*p' passes the struct 'p', whose fields carry derivatives, by value to 'helper'
double k(const P *p, const double *x) { return helper(*p, x); }

/* A struct copied whole is refused on its own. */
#pragma mpiad differentiate wrt(p, x) varying(p, x)
// CHECK: {{.*}}struct-by-value-active.c:[[@LINE+1]]:43: error: 'q' is a struct whose float/double fields carry derivatives; here it is assigned
double h(const P *p, const double *x) { P q = *p; return helper(q, x); }
#else
static double helper(const P *p, const double *x) {
  double s = 0.0;
  for (int i = 0; i < p->n; i++)
    s += p->a * x[i];
  return s;
}

#pragma mpiad differentiate wrt(p, x) varying(p, x)
double f(const P *p, const double *x) { return helper(p, x); }
#endif
