// An unknown clause is named and the known ones listed.
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

// CHECK: {{.*}}pragma-unknown-clause.c:[[@LINE+1]]:36: error: unknown clause 'respect' in '#pragma mpiad differentiate' (expected wrt, output, replicated, varying, scratch, replicas, name, semantics, reverse or forward)
#pragma mpiad differentiate wrt(x) respect(x)
double f(double x) { return x * x; }
