// The length in replicated(NAME[LEN]) goes into a generated allocation and
// the MPIAD_CHECK verification, so it must be an integer expression over the
// function's parameters: names, integer constants, + - * / % << >> and
// parentheses.  Anything else is a located error at the pragma, never text
// pasted into calloc(...).  Each case is its own run (-DCASE=k): a pragma
// with a malformed clause stops the parse of that file.
//
// RUN: not %mpiad-emit -DCASE=1 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C1 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=2 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C2 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=3 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C3 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=4 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C4 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=5 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C5 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=6 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C6 --implicit-check-not error:
// RUN: not %mpiad-emit -DCASE=7 %s -o %t.out 2>&1 | FileCheck %s --check-prefix=C7 --implicit-check-not error:
// RUN: %mpiad-emit -DCASE=8 %s -o - | FileCheck %s --check-prefix=C8

#if CASE == 1
// C1: replicated-length-expr.c:[[@LINE+1]]:49: error: 'q' in the length of replicated(x[...]) is neither an integer parameter of 'f' nor an integer constant or global of the file
#pragma mpiad differentiate wrt(x) replicated(x[q], n) varying(v)
#elif CASE == 2
// C2: replicated-length-expr.c:[[@LINE+1]]:51: error: expected an integer expression over the function's parameters as the length in replicated(NAME[...]), found ']'
#pragma mpiad differentiate wrt(x) replicated(x[(n], n) varying(v)
#elif CASE == 3
// C3: replicated-length-expr.c:[[@LINE+1]]:51: error: incomplete length expression 'n+' in replicated(NAME[...])
#pragma mpiad differentiate wrt(x) replicated(x[n+], n) varying(v)
#elif CASE == 4
// C4: replicated-length-expr.c:[[@LINE+1]]:49: error: expected an integer expression over the function's parameters as the length in replicated(NAME[...]), found '"s"'
#pragma mpiad differentiate wrt(x) replicated(x["s"], n) varying(v)
#elif CASE == 5
// C5: replicated-length-expr.c:[[@LINE+1]]:49: error: expected an integer expression over the function's parameters as the length in replicated(NAME[...]), found '{'
#pragma mpiad differentiate wrt(x) replicated(x[{n}], n) varying(v)
#elif CASE == 6
// C6: replicated-length-expr.c:[[@LINE+1]]:49: error: 'v' in the length of replicated(x[...]) must be an integer, not a parameter of type 'double'
#pragma mpiad differentiate wrt(x) replicated(x[v], n) varying(v)
#elif CASE == 7
// C7: replicated-length-expr.c:[[@LINE+1]]:49: error: the length of a replicated array is an integer; '1.5' is not
#pragma mpiad differentiate wrt(x) replicated(x[1.5], n) varying(v)
#else
#pragma mpiad differentiate wrt(x) replicated(x[(n + 1) * 2 - n % 3], n) varying(v)
#endif
double f(const double *x, int n, double v) {
  double s = v;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
// C8: x_b_part = mpiad_alloc_zeroed((n + 1) * 2 - n % 3
