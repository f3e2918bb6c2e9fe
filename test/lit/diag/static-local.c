// A static local of floating type: one error, no follow-up errors about its uses.
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

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // CHECK: {{.*}}static-local.c:[[@LINE+1]]:17: error: static local variable 'acc' of floating type in a differentiated function is not supported: the generated functions cannot reach it; declare it 'static' at file scope, before the function, where its derivatives are followed like a global's
  static double acc = 0.0;
  acc += x;
  return acc;
}
