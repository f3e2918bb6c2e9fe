// C99 has no implicit function declarations: a call to an undeclared
// function, or to a library function whose header is not included, is the
// error the C compiler gives, at the user's line, before anything is
// generated.  (The parse accepts implicit declarations only for the functions
// the tool generates, which code after a marked function may call.)
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

#pragma mpiad differentiate wrt(x) varying(x)
double f(double x) {
  // CHECK: implicit-declaration.c:[[@LINE+1]]:10: error: call to undeclared library function 'sqrt'; ISO C99 and later do not support implicit function declarations: include its header (for example <math.h>) or declare it
  return sqrt(x) * x;
}

double g(double x) {
  // CHECK: implicit-declaration.c:[[@LINE+1]]:3: error: call to undeclared function 'helper_not_declared'; ISO C99 and later do not support implicit function declarations: declare it before its use
  helper_not_declared(x);
  return f_b(x, &x, 1.0); /* generated for f: fine */
}
