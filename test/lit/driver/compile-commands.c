// -p DIR reads the flags of this file from DIR/compile_commands.json (here -I
// and -D, as a build system would record them), like clang tools do.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: echo '[{"directory": "%S", "file": "%s", "arguments": ["cc", "-I%S/Inputs", "-DCUBE", "-c", "%s"]}]' > %t.dir/compile_commands.json
// RUN: %mpiad-emit -p %t.dir %s -o - | FileCheck %s
// The "command" form (one string) works too.
// RUN: echo '[{"directory": "%S", "file": "%s", "command": "cc -I%S/Inputs -DCUBE -c %s"}]' > %t.dir/compile_commands.json
// RUN: %mpiad-emit -p %t.dir %s -o - | FileCheck %s
// Without the database the header is not found.
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NODB

// CHECK:      /* forward sweep */
// CHECK-NEXT: mpiad_ret = SCALE * x * x * x;
// NODB: fatal error: 'scale.h' file not found

#include "scale.h"

#pragma mpiad differentiate wrt(x)
double f(double x) {
#ifdef CUBE
  return SCALE * x * x * x;
#else
  return SCALE * x;
#endif
}
