// The generated file that mpiad-cc compiles has #line directives: compiler
// diagnostics, __FILE__, __LINE__, assert messages and the -g line table of
// the user's code name the user's file (as given on the command line) and
// line, and with -g the compile unit is named after it. A file without
// '#pragma mpiad' goes to the compiler as given.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cp %s %t.dir/w.c && cp %S/Inputs/no-pragma.c %t.dir/plain.c
// RUN: cd %t.dir && %mpiad-cc -Wall -DUNUSED -c w.c -o w.o 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: cd %t.dir && %mpiad-cc -g w.c -o app
// RUN: cd %t.dir && ./app | FileCheck %s --check-prefix=FILE
// RUN: cd %t.dir && not --crash ./app fail 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: cd %t.dir && %mpiad-cc -g -c w.c -o wg.o
// RUN: llvm-dwarfdump --debug-line %t.dir/wg.o | FileCheck %s --check-prefix=DWARF
// The compile unit is named after the user's file too (it was the deleted
// temporary file, $TMPDIR/mpiad-*.c).
// RUN: llvm-dwarfdump --debug-info %t.dir/wg.o | FileCheck %s --check-prefix=CU
// The same with gcc behind mpicc (a map from the generated file's path).
// RUN: cd %t.dir && env -u MPIAD_CC OMPI_CC=gcc %mpiad-cc -g -c w.c -o wgcc.o
// RUN: llvm-dwarfdump --debug-info %t.dir/wgcc.o | FileCheck %s --check-prefix=CU
// No pragma: the command names the user's file, and __FILE__ is its path.
// RUN: cd %t.dir && %mpiad-cc -### plain.c -o plain 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: cd %t.dir && %mpiad-cc plain.c -o plain && ./plain | FileCheck %s --check-prefix=PLAINEXE

// WARN: {{^}}w.c:[[# @LINE + 20]]:7: warning: unused variable 'unused'
// FILE: {{^}}w.c:[[# @LINE + 23]] sq_b = 6
// ASSERT: w.c:[[# @LINE + 23]]: {{.*}}Assertion `argc < 2' failed
// DWARF: name: "w.c"
// CU: DW_TAG_compile_unit
// CU-NOT: DW_TAG
// CU: DW_AT_name ("{{.*}}/w.c")
// PLAIN-NOT: differentiated
// PLAIN: "-c" "plain.c"
// PLAINEXE: {{^}}plain.c:5{{$}}

#include <assert.h>
#include <stdio.h>

#pragma mpiad differentiate wrt(x)
double sq(double x) { return x * x; }

int main(int argc, char **argv) {
  (void)argv;
#ifdef UNUSED
  int unused = 0;
#endif
  double xb = 0;
  sq_b(3.0, &xb, 1.0);
  printf("%s:%d sq_b = %g\n", __FILE__, __LINE__, xb);
  assert(argc < 2);
  return 0;
}
