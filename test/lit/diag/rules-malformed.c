// A malformed rule file given with --rules is reported at its line and column
// (file:line:col: error: ...), the run fails and writes nothing.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit --rules %S/Inputs/bad-expr.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=EXPR --implicit-check-not error:
// RUN: not test -e %t.out
// RUN: not %mpiad-emit --rules %S/Inputs/bad-mode.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=MODE --implicit-check-not error:
// RUN: not %mpiad-emit --rules %S/Inputs/bad-keyword.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=KEYWORD --implicit-check-not error:
// RUN: not %mpiad-emit --rules %S/Inputs/no-such-file.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not error:
// RUN: not test -e %t.out

// EXPR: {{.*}}bad-expr.rules:2:24: error: unexpected '*'
// MODE: {{.*}}bad-mode.rules:3:12: error: expected read, write or readwrite
// KEYWORD: {{.*}}bad-keyword.rules:1:1: error: unknown rule keyword 'frobnicate' (expected 'math' or 'comm')
// MISSING: mpiad-cc: error: cannot open rules file '{{.*}}no-such-file.rules'

#pragma mpiad differentiate wrt(x)
double f(double x) { return x * x; }
