// A pointer to structs set from a pointer field is constant data
// (exec/struct_pointer_from_field.c), unless a struct of that type carries
// derivatives in the function: then the field may point into it, and the
// assignment is refused, located.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

typedef struct {
  double x, m;
} Body;
typedef struct {
  void *bodies;
} Sim;

#pragma mpiad differentiate wrt(b) varying(b)
double mass_weighted(const Sim *s, const Body *b, int n) {
  // CHECK: struct-pointer-from-field.c:[[@LINE+1]]:9: error: 'q' is a struct whose float/double fields carry derivatives; here it is assigned
  Body *q = (Body *)s->bodies;
  double t = 0.0;
  for (int i = 0; i < n; i++)
    t += b[i].m * b[i].x * q[i].m;
  return t;
}
