// A function that returns a struct with a const field (csmith seed 8705):
// the generated code keeps the returned value in a variable and assigns it,
// which C forbids for such a struct, so the generated C did not compile.
// Now a located error.
//
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
struct S {
  float x;
  const float f3;
};
static struct S g = {1.0f, 2.0f};

// CHECK: const-field-return.c:[[@LINE+2]]:10: error: 'f' returns a struct with a const field ('f3'): the generated code keeps the returned value in a variable and assigns it, which such a struct forbids; drop the const, or return the struct through a pointer parameter
#pragma mpiad differentiate wrt(p) output(p) varying(p)
struct S f(float *p) {
  p[0] = p[0] * p[0];
  return g;
}
