// One expression 20,000 levels deep (a sum of 20,000 terms; Clang accepts it):
// the tool used to die of a stack overflow from 9,000 terms on, and took
// quadratic time (activity asked again at every level of the tree, Clang's
// begin location of `a + b` walked down again at every level).  It now
// works, in forward and reverse mode, with the exact derivative
// 0 + 1 + ... + 19999 = 199990000.  An expression deeper than 100,000 levels
// is a located error, never a crash.
//
// RUN: python3 %S/../Inputs/gen_deep_sum.py 20000 --main > %t.c
// RUN: %mpiad-cc %t.c -o %t
// RUN: %mpirun 1 %t | FileCheck %s
// CHECK: f 299985000.0 tangent 199990000.0 adjoint 199990000.0
//
// RUN: python3 %S/../Inputs/gen_deep_sum.py 100100 > %t.deep.c
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %t.deep.c -o %t.out 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not test -e %t.out
// DEEP: {{.*}}.deep.c:5:14: error: expression nested too deeply (100102 levels); split it into several statements
// DEEP-NOT: error:
