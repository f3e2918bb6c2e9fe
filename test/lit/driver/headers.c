// Headers: mpiad.h compiles without a diagnostic of its own under
// -std=c89 -pedantic, c99, c11, c17, c2x and as C++ (extern "C"); the header
// --emit-header writes is self-contained (it compiles alone), has an include
// guard and extern "C" guards, and a C++ program that includes it links with
// the C object and runs (1 rank), printing a checked gradient.
// (mpi.h's own -pedantic warnings under C89 are not mpiad's, so only
// diagnostics located in mpiad.h count.)
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %mpicc -std=c89 -pedantic -Wall -Wextra -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c 2>&1 | FileCheck %s --allow-empty --implicit-check-not=error: --check-prefix=OWN
// RUN: %mpicc -std=c99 -pedantic -Wall -Wextra -Werror -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c
// RUN: %mpicc -std=c11 -pedantic -Wall -Wextra -Werror -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c
// RUN: %mpicc -std=c17 -pedantic -Wall -Wextra -Werror -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c
// RUN: %mpicc -std=c2x -pedantic -Wall -Wextra -Werror -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Werror -I%include -c -fsyntax-only %S/Inputs/use-mpiad.c
// OWN-NOT: mpiad.h:{{[0-9]+}}:{{[0-9]+}}:
//
// RUN: %mpiad-cc --emit-header %S/Inputs/cxx-sq.c -o %t.dir/sq_ad.h
// RUN: FileCheck %s --check-prefix=HDR --input-file %t.dir/sq_ad.h
// RUN: %mpicc -std=c99 -Wall -Wextra -Werror -I%include -c -fsyntax-only -x c %t.dir/sq_ad.h
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Werror -I%include -c -fsyntax-only %t.dir/sq_ad.h
// RUN: %mpiad-cc -c %S/Inputs/cxx-sq.c -o %t.dir/sq.o
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Werror -I%t.dir -I%include -c %S/Inputs/cxx-main.cpp -o %t.dir/main.o
// RUN: %mpicc %t.dir/main.o %t.dir/sq.o %libmpiad -lstdc++ -lm -o %t.dir/app
// RUN: %mpirun 1 %t.dir/app | FileCheck %s

// HDR: {{^}}#ifndef MPIAD_GENERATED_CXX_SQ_C_H
// HDR-NEXT: {{^}}#define MPIAD_GENERATED_CXX_SQ_C_H
// HDR:      {{^}}#include "mpiad.h"
// HDR-NEXT: {{^}}#include <mpi.h>
// HDR: {{^}}extern "C" {
// HDR-NEXT: {{^}}#endif
// HDR-NEXT: double sumsq_b(const double *x, double *x_b, int n, double sumsq_bar);
// HDR-NEXT: {{^}}#ifdef __cplusplus
// HDR-NEXT: {{^}}}
// HDR: {{^}}#endif
// CHECK: C++: grad = 3 -4 0.5: OK
