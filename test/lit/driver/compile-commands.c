// -p DIR reads the flags of this file from DIR/compile_commands.json (here -I
// and -D, as a build system would record them), like clang tools do.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: echo '[{"directory": "%S", "file": "%s", "arguments": ["cc", "-I%S/Inputs", "-DCUBE", "-c", "%s"]}]' > %t.dir/compile_commands.json
// RUN: %mpiad-emit -p %t.dir %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// The "command" form (one string) works too.
// RUN: echo '[{"directory": "%S", "file": "%s", "command": "cc -I%S/Inputs -DCUBE -c %s"}]' > %t.dir/compile_commands.json
// RUN: %mpiad-emit -p %t.dir %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// A relative -I and file name are taken from "directory", and -DNAME=VALUE
// reaches the preprocessor (POWER == 4 selects the quartic), also when mpiad-cc
// runs in another directory.
// RUN: echo '[{"directory": "%S", "file": "compile-commands.c", "arguments": ["cc", "-IInputs", "-DPOWER=4", "-c", "compile-commands.c"]}]' > %t.dir/compile_commands.json
// RUN: cd %t.dir && %mpiad-emit -p %t.dir %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s --check-prefix=QUARTIC
// Without the database the header is not found.
// (The generated file holds this source: sed drops the check lines first, so
// that a pattern cannot match its own comment.)
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NODB

// CHECK:      /* forward sweep */
// CHECK-NEXT: mpiad_ret = SCALE * x * x * x;
// QUARTIC:      /* forward sweep */
// QUARTIC-NEXT: mpiad_ret = SCALE * x * x * x * x;
// NODB: fatal error: 'scale.h' file not found

#include "scale.h"

#pragma mpiad differentiate wrt(x)
double f(double x) {
#if defined(POWER) && POWER == 4
  return SCALE * x * x * x * x;
#elif defined(CUBE)
  return SCALE * x * x * x;
#else
  return SCALE * x;
#endif
}
