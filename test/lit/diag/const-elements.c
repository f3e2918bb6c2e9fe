// Found by test/random/csmith_run.py (seed 2078): an array of const pointers
// initialised from addresses (`int8_t **const l[1] = {&g};`) became a
// declaration and element assignments that kept the const, and a local
// struct with a const field (`struct S0 l = {...}` with `const float f3`)
// became a declaration and an assignment of the whole struct: neither
// compiled.  The array's elements are now declared without the const; the
// struct is a located error (it cannot be assigned at all).
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// RUN: %mpiad-cc -DFINE -c %s -o %t.o
#include <stdint.h>

struct S0 {
  int f0;
  const float f3;
  double f4;
};
static int8_t g = 3;
int8_t *pg = &g;

#pragma mpiad differentiate wrt(x) varying(x)
double f(double x) {
  int8_t **const l[1] = {&pg};
  const double tab[2] = {1.0, x};
  return x * (**l[0]) + tab[1] * tab[0];
}

#ifndef FINE
#pragma mpiad differentiate wrt(x) varying(x)
double h(double x) {
  // CHECK: const-elements.c:[[@LINE+1]]:13: error: 's' has a const field ('f3'): the generated code assigns a local's initial value after declaring it, which such a struct forbids; drop the const or declare the variable outside the differentiated function
  struct S0 s = {2, 1.5f, 3.0};
  return x * s.f3;
}
#endif
