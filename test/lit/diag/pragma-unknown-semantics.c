// semantics(...) takes global or per_rank.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// An existing output file is left untouched.
// RUN: echo keep > %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>/dev/null
// RUN: FileCheck --check-prefix=KEEP --input-file %t.out %s
// KEEP: {{^keep$}}
// KEEP-NOT: {{.}}

// CHECK: {{.*}}pragma-unknown-semantics.c:[[@LINE+1]]:46: error: unknown semantics 'local'; expected 'global' or 'per_rank'
#pragma mpiad differentiate wrt(x) semantics(local)
double f(double x) { return x * x; }
