// --showme:compile, --showme:link and --showme print what mpiad-cc adds to
// a compile and a link, with what mpicc adds (like Open MPI's wrappers):
// mpiad's include directory and MPI's, libmpiad.a, MPI's libraries and -lm.
// A plain compiler builds a program that uses the runtime with them.
// UNSUPPORTED: sanitize
//
// RUN: %mpiad-cc --showme:compile | FileCheck %s --check-prefix=COMPILE
// RUN: %mpiad-cc --showme:link | FileCheck %s --check-prefix=LINK
// RUN: %mpiad-cc --showme | FileCheck %s --check-prefix=ALL
// RUN: not %mpiad-cc --showme:nothing 2>&1 | FileCheck %s --check-prefix=BAD
// mpicc's own flags are all there.
// RUN: mpicc --showme:compile > %t.mpi-compile && %mpiad-cc --showme:compile > %t.ad-compile
// RUN: mpicc --showme:link > %t.mpi-link && %mpiad-cc --showme:link > %t.ad-link
// RUN: python3 -c "import sys; a = open(sys.argv[1]).read().split(); sys.exit(0 if all(w in a for w in open(sys.argv[2]).read().split()) else 1)" %t.ad-compile %t.mpi-compile
// RUN: python3 -c "import sys; a = open(sys.argv[1]).read().split(); sys.exit(0 if all(w in a for w in open(sys.argv[2]).read().split()) else 1)" %t.ad-link %t.mpi-link
// RUN: sh -c 'clang-19 $(%mpiad-cc --showme:compile) -c %s -o %t.o && clang-19 %t.o $(%mpiad-cc --showme:link) -o %t.app'
// RUN: %mpirun 1 %t.app | FileCheck %s --check-prefix=RUNS

// COMPILE: {{^}}-I{{[^ ]*}}/include {{.*}}-I
// LINK: {{^[^ ]*}}/lib/libmpiad.a {{.*}}-lmpi{{.*}} -lm{{$}}
// ALL: {{^[^ ]+}} -I{{[^ ]*}}/include {{.*}}/lib/libmpiad.a {{.*}} -lm{{$}}
// BAD: mpiad-cc: error: unknown argument: '--showme:nothing'
// RUNS: popped 2.5

#include "mpiad.h"
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  mpiad_push_f64(2.5);
  printf("popped %g\n", mpiad_pop_f64());
  MPI_Finalize();
  return 0;
}
