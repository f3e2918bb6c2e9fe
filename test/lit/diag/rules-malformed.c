// A malformed rule file given with --rules is reported at its line and column
// (file:line:col: error: ...), the run fails and writes nothing.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit --rules %S/Inputs/bad-expr.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=EXPR --implicit-check-not error:
// RUN: not test -e %t.out
// RUN: not %mpiad-emit --rules %S/Inputs/bad-mode.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=MODE --implicit-check-not error:
// RUN: not %mpiad-emit --rules %S/Inputs/bad-extent.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=EXTENT --implicit-check-not error:
// RUN: not %mpiad-emit --rules %S/Inputs/bad-keyword.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=KEYWORD --implicit-check-not error:
// RUN: not %mpiad-emit --rules %S/Inputs/no-such-file.rules %s -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not error:
// RUN: not test -e %t.out

// EXPR: {{.*}}bad-expr.rules:2:24: error: unexpected '*'
// MODE: {{.*}}bad-mode.rules:3:12: error: expected read, write or readwrite
// EXTENT: {{.*}}bad-extent.rules:6:16: error: 'sizeof_comm' is not a parameter of MPI_Foo
// EXTENT: {{.*}}bad-extent.rules:7:10: error: 'a' is not a buffer the call writes (give its 'buffer' clause first)
// EXTENT: {{.*}}bad-extent.rules:8:38: error: expected ')'
// EXTENT: {{.*}}bad-extent.rules:9:9: error: expected 'status NAME [COUNT]'
// KEYWORD: {{.*}}bad-keyword.rules:1:1: error: unknown rule keyword 'frobnicate' (expected 'math', 'comm' or 'inactive')
// MISSING: mpiad-cc: error: cannot open rules file '{{.*}}no-such-file.rules'

#pragma mpiad differentiate wrt(x)
double f(double x) { return x * x; }
