// With --target=cuda a file holds only the marked functions (compiled for the
// GPU); host code such as main stays in a .c file of its own, compiled as C.
// RUN: not %mpiad-emit --target=cuda %s -o %t.cu 2>&1 | FileCheck %s
// RUN: not test -e %t.cu
// A file without marked functions is plain C on either target.
// RUN: %mpiad-emit --target=cuda %S/../Inputs/pmpi_count.c -o %t.plain.c 2>&1 | count 0
// RUN: not grep -q mpiad_gpu %t.plain.c
#include <mpi.h>

#pragma mpiad differentiate wrt(x)
double square(double x) { return x * x; }

int main(void) { return square(2.0) > 0 ? 0 : 1; }
// CHECK: cuda-host-code.c:[[@LINE-1]]:5: error: with --target=cuda a file holds only the functions marked '#pragma mpiad differentiate'; move 'main' to a .c file of its own (it is compiled as C and linked with the GPU code)
