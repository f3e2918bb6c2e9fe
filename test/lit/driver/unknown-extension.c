// An input that is not .c, .o, .a or .so is an error, whatever the mode.
//
// RUN: rm -f %t.out
// RUN: echo 'int x;' > %t.f90
// RUN: not %mpiad-cc %t.f90 -o %t.out 2>&1 | FileCheck %s
// RUN: not %mpiad-cc -c %t.f90 -o %t.out 2>&1 | FileCheck %s
// RUN: not %mpiad-emit %t.f90 -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

// CHECK: mpiad-cc: error: unknown input '{{.*}}.f90' (expected .c, .o, .a or .so)
