// Generated code that the C compiler rejects is a bug of mpiad-cc, not of the
// user's code: the driver says "internal error" at the marked function in the
// user's file, then passes on the compiler's messages, and writes no object.
// The failure is provoked with a define that only the generated code meets:
// the adjoint's parameter zeta_b (the user's code and mpiad.h never name it).
// An error in the user's own code (here -Werror and an unused variable in the
// user's function) is not called internal.
// generated-warnings: skip (both variants break the build on purpose)
//
// RUN: rm -f %t.o
// RUN: not %mpiad-cc -c %s -Dzeta_b=1+ -o %t.o 2>&1 | FileCheck %s
// RUN: not test -e %t.o
// CHECK: {{.*}}internal-error.c:[[# @LINE + 8]]:8: error: internal error: the code mpiad-cc generated for 'f' does not compile; please report this bug with the compiler's messages below
// CHECK: mpiad-{{.*}}.c:{{[0-9]+}}:{{[0-9]+}}: error:
// CHECK-NOT: mpiad-cc: error: compiling the generated code
//
// RUN: not %mpiad-cc -c %s -DUSER_WARNING -Wunused-variable -Werror -o %t.o 2>&1 | FileCheck --check-prefix=USER %s
// USER-NOT: internal error
// USER: mpiad-cc: error: compiling the generated code of '{{.*}}internal-error.c' failed
#pragma mpiad differentiate wrt(zeta) varying(zeta, c)
double f(double zeta, double c) {
#ifdef USER_WARNING
  int unused = 0;
#endif
  return zeta * zeta * c;
}
