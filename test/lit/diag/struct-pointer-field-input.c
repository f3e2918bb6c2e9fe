// A differentiated struct whose floating data sits behind pointer fields,
// as CoMD keeps its atoms (`s->atoms->r[i][k]`): the data was read as a
// constant and the adjoint came out zero, silently (found by a tester who
// did not write mpiad, on exmatex/CoMD's ljForce).  Data reached along
// fields (`s->atoms->r`) now carries derivatives (exec/struct_pointer_fields.c);
// what the tool cannot shadow is a located error that says what to write:
// data reached through an index or a cast on the way, a view the clauses
// do not name, a pointer field the function assigns, paths or lengths that
// do not fit, and (as before) a local struct's pointer field that may
// point into a differentiated array.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

typedef double real3[3];
typedef struct {
  real3 *r;
  double *m;
  double *U;
  int n;
} Atoms;
typedef struct {
  Atoms *atoms;
  Atoms *boxes;
  void *raw;
  double e;
} Sim;

#pragma mpiad differentiate wrt(s) output(s)
int indexed(Sim *s, int nb) {
  double e = 0.0;
  for (int b = 0; b < nb; b++)
    for (int i = 0; i < s->boxes[b].n; i++)
      // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:12: error: 's->boxes[b].m' is floating-point data reached through a pointer field of 's', which is differentiated; mpiad follows derivatives through pointer fields along fields only (s->atoms->r), not through an index or a cast on the way, so this data would count as a constant and its derivatives would be lost: pass the array as a parameter of its own (double *m) and list it in wrt(...)/output(...)
      e += s->boxes[b].m[i] * s->boxes[b].m[i];
  s->e = e;
  return 0;
}

#pragma mpiad differentiate wrt(s) output(s)
int cast(Sim *s) {
  double e = 0.0;
  for (int i = 0; i < s->atoms->n; i++)
    // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:27: error: '((Atoms *)s->raw)->m' is floating-point data reached through a pointer field of 's'
    e += s->atoms->m[i] * ((Atoms *)s->raw)->m[i];
  s->e = e;
  return 0;
}

#pragma mpiad differentiate wrt(s->atoms->m) output(s->e)
int unnamed(Sim *s) {
  double e = 0.0;
  for (int i = 0; i < s->atoms->n; i++) {
    // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:15: error: 's->atoms->U' carries derivatives here, so the adjoint needs 's_b->atoms->U', which the clauses do not ask the caller for: add 's->atoms->U' to output(...) (the caller's shadow then holds its seed, zero if nothing reads it after the call) or to wrt(...)
    s->atoms->U[i] = s->atoms->m[i] * s->atoms->m[i];
    e += s->atoms->U[i];
  }
  s->e = e;
  return 0;
}

#pragma mpiad differentiate wrt(s->atoms->m, other) output(s->e)
int assigned(Sim *s, double *other) {
  // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:13: error: the pointer field 's->atoms->m' is assigned here; mpiad reads data through pointer fields as the caller set them up (the shadow's same field holds its adjoint): set the field before the call, or pass the array as a parameter
  s->atoms->m = other;
  s->e = s->atoms->m[0];
  return 0;
}

// CHECK: struct-pointer-field-input.c:[[@LINE+1]]:33: error: 's->atoms->q' in wrt(s->atoms->q) is not float or double data that 'paths' reads or writes through the fields of 's' (a path names a float or double field, or a pointer field to such data)
#pragma mpiad differentiate wrt(s->atoms->q, s->atoms->m) output(s->e)
int paths(Sim *s, int n) {
  s->e = s->atoms->m[0] * s->atoms->m[n - 1];
  return 0;
}

// CHECK: struct-pointer-field-input.c:[[@LINE+1]]:45: error: 'n' in the length of wrt(s->atoms->m): the length is evaluated by lengths_s_shadow_new(s), where only 's' and the file's constants are known; write it with the fields of 's'
#pragma mpiad differentiate wrt(s->atoms->m[n]) output(s->e)
int lengths(Sim *s, int n) {
  s->e = s->atoms->m[0] * s->atoms->m[n - 1];
  return 0;
}

// CHECK: struct-pointer-field-input.c:[[@LINE+1]]:33: error: 'x' in wrt(x->m) must be a parameter of 'rootNotStruct' that is a pointer to one struct (S *x), whose fields the path follows
#pragma mpiad differentiate wrt(x->m) output(s->e)
int rootNotStruct(Sim *s, double *x) {
  s->e = x[0];
  return 0;
}

#pragma mpiad differentiate wrt(m) output(return)
double local(const double *m, int n) {
  Atoms a;
  double buf[8];
  a.m = buf;
  double t = 0.0;
  for (int i = 0; i < n; i++)
    // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:5: error: floating-point data accessed through the pointer field 'a.m' counts as a constant, which is wrong if it points into 'm' or another differentiated array
    a.m[i] = m[i];
  for (int i = 0; i < n; i++)
    t += a.m[i] * a.m[i];
  return t;
}

// Data behind a pointer field of a struct passed by value: its adjoint
// would go to the by-value struct's local accumulator, which has no data
// (the generated code added pointers); refused until it is shadowed.
struct data {
  int nx;
  double dx;
  double *values;
};
#pragma mpiad differentiate wrt(d.values[d.nx]) output(return) varying(d)
double byValue(struct data d) {
  double s = 0.0;
  for (int i = 0; i < d.nx; i++)
    // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:12: error: 'd.values' carries derivatives here, but it is data behind a pointer field of 'd', a struct passed by value, which mpiad does not shadow yet: pass a pointer to the struct (struct data *d) and name 'd->values' in the clause
    s += d.values[i] * d.values[i];
  return s;
}
