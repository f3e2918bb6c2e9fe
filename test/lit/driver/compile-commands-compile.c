// -p DIR with -c: the compile step uses the flags of this file's entry in
// DIR/compile_commands.json, as the parse does (compile-commands.c): mpicc
// finds Inputs/scale.h (-I from the database, relative to its "directory")
// and compiles the CUBE branch (-D from the database).
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: echo '[{"directory": "%S", "file": "%s", "arguments": ["cc", "-IInputs", "-DCUBE", "-c", "%s"]}]' > %t.dir/compile_commands.json
// RUN: %mpiad-cc -p %t.dir -c %s -o %t.o
// RUN: nm %t.o | FileCheck %s
// CHECK: T f_b

#include "scale.h"

#pragma mpiad differentiate wrt(x)
double f(double x) {
#ifdef CUBE
  return SCALE * x * x * x;
#else
  return SCALE * x;
#endif
}
