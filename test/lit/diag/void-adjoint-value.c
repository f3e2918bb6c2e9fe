// Code after a marked function calls its adjoint before the adjoint exists:
// the parse sees an implicit `int sq_b()`. The generated sq_b returns
// nothing, so a use of its value is an error located at the call (the C
// compiler would reject the generated file); calls whose value is unused are
// fine (a statement, a cast to void, a loop's increment, a comma's left).
//
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.c
// RUN: %mpiad-emit -DONLY_UNUSED %s -o %t.ok.c
// RUN: %mpicc -DONLY_UNUSED -c %t.ok.c -I%include -o %t.ok.o

#pragma mpiad differentiate wrt(x) output(y)
void sq(double x, double *y) { *y = x * x; }

double use(double x) {
  double xb = 0, y = 0, yb = 1;
  sq_b(x, &xb, &y, &yb);
  (void)sq_b(x, &xb, &y, &yb);
  for (int i = 0; i < 2; sq_b(x, &xb, &y, &yb), i++)
    sq_b(x, &xb, &y, &yb);
  if (x > 0)
    sq_b(x, &xb, &y, &yb);
#ifndef ONLY_UNUSED
  // CHECK: void-adjoint-value.c:[[@LINE+1]]:14: error: the value of a call to 'sq_b' is used, but the generated function returns void
  double v = sq_b(x, &xb, &y, &yb);
  // CHECK: void-adjoint-value.c:[[@LINE+1]]:7: error: the value of a call to 'sq_b'
  if (sq_b(x, &xb, &y, &yb))
    return v;
  // CHECK: void-adjoint-value.c:[[@LINE+1]]:3: error: the value of a call to 'sq_b'
  sq_b(x, &xb, &y, &yb) * 2;
#endif
  return xb;
}
