// A differentiated struct whose floating data sits behind pointer fields,
// as CoMD keeps its atoms (`s->atoms->r[i][k]`): the data was read as a
// constant and the adjoint came out zero, silently (found by a tester who
// did not write mpiad, on exmatex/CoMD's ljForce).  Each such access is
// now a located error that says what to write.  Scalar fields of the
// struct itself (`s->e`) still carry derivatives.
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:

typedef double real3[3];
typedef struct {
  real3 *r;
  double *m;
  int n;
} Atoms;
typedef struct {
  Atoms *atoms;
  double e;
} Sim;

#pragma mpiad differentiate wrt(s) output(s)
int energy(Sim *s) {
  double e = 0.0;
  for (int i = 0; i < s->atoms->n; i++)
    for (int k = 0; k < 3; k++)
      // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:12: error: 's->atoms->r' is floating-point data reached through a pointer field of 's', which is differentiated; mpiad does not follow derivatives through pointer fields, so this data would count as a constant and its derivatives would be lost: pass the array as a parameter of its own (double *r) and list it in wrt(...)/output(...)
      e += s->atoms->r[i][k] * s->atoms->r[i][k];
  s->e = e;
  return 0;
}

#pragma mpiad differentiate wrt(s) output(return) varying(s)
double mass(const Sim *s, int n) {
  double t = s->e;
  for (int i = 0; i < n; i++)
    // CHECK: struct-pointer-field-input.c:[[@LINE+1]]:10: error: 's->atoms->m' is floating-point data reached through a pointer field of 's'
    t += s->atoms->m[i];
  return t;
}
