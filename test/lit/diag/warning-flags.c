// mpiad-cc's own warnings obey the compiler switches: each names itself
// [-Wmpiad-NAME]; -Werror makes it an error (exit 1, nothing written);
// -w silences it; -Wno-mpiad-NAME silences that one; -Werror=mpiad-NAME
// makes that one an error; an unknown mpiad name is a warning. The same
// holds when mpiad-cc compiles (-c), not only with --emit-source.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %mpiad-emit %s -o %t.dir/plain.c 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not %mpiad-emit -Werror %s -o %t.dir/werror.c 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not test -e %t.dir/werror.c
// RUN: not %mpiad-emit -Werror=mpiad-unused-checkpoint %s -o %t.dir/werror.c 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: %mpiad-emit -Werror -Wno-error=mpiad-unused-checkpoint %s -o %t.dir/noerror.c 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %mpiad-emit -w %s -o %t.dir/w.c 2>&1 | count 0
// RUN: %mpiad-emit -Wno-mpiad-unused-checkpoint %s -o %t.dir/wno.c 2>&1 | count 0
// RUN: %mpiad-emit -Wno-mpiad-unused-checkpoint -Wmpiad-unused-checkpoint %s -o %t.dir/again.c 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %mpiad-emit -Wno-mpiad-no-such-warning %s -o %t.dir/unknown.c 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %mpiad-cc -c %s -o %t.dir/plain.o 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not %mpiad-cc -Werror -c %s -o %t.dir/werror.o 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not test -e %t.dir/werror.o
// RUN: %mpiad-cc -w -c %s -o %t.dir/w.o 2>&1 | count 0

// WARN: warning-flags.c:[[# @LINE + 10]]:11: warning: '#pragma mpiad checkpoint' has no effect: it is not inside a function that is differentiated [-Wmpiad-unused-checkpoint]
// WARN-NOT: error
// ERROR: warning-flags.c:[[# @LINE + 8]]:11: error: '#pragma mpiad checkpoint' has no effect: it is not inside a function that is differentiated [-Werror,-Wmpiad-unused-checkpoint]
// UNKNOWN: mpiad-cc: warning: unknown warning option '-Wno-mpiad-no-such-warning'
// UNKNOWN: warning: '#pragma mpiad checkpoint' has no effect

void plain(double *u, int n, int steps) {
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i];
  #pragma mpiad checkpoint
    for (int i = 0; i < n; i++)
      u[i] = 2 * u[i];
  }
}

#pragma mpiad differentiate wrt(x)
double g(double x) { return x * x; }
