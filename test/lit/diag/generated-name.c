// The name of a generated function must be free: not main, not a function of
// the C library or a builtin, not a name MPI, NCCL, CUDA or mpiad own, not
// generated twice in one file.  Each is a located error at the pragma, not
// conflicting types in the generated C.  A prototype of the generated
// function, and a call to it before any declaration (its definition comes
// right after the marked function), are fine: see the second RUN line.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out
// RUN: %mpiad-cc -DFINE -c %s -o %t.o
#include <math.h>
#include <mpi.h>

#ifndef FINE
// CHECK: generated-name.c:[[@LINE+1]]:9: error: cannot name the generated function 'main': 'main' is the program's entry point; choose another name with name(...)
#pragma mpiad differentiate wrt(x) varying(x) name(main)
double f1(double x) { return x * x; }

// CHECK: generated-name.c:[[@LINE+1]]:9: error: cannot name the generated function 'sin': it is a function of the C library or a compiler builtin; choose another name with name(...)
#pragma mpiad differentiate wrt(x) varying(x) name(sin)
double f2(double x) { return x * x; }

// CHECK: generated-name.c:[[@LINE+1]]:9: error: cannot name the generated function 'MPI_Grad': names beginning with 'MPI_' belong to MPI, NCCL, CUDA, mpiad or the compiler; choose another name with name(...)
#pragma mpiad differentiate wrt(x) varying(x) name(MPI_Grad)
double f3(double x) { return x * x; }

#pragma mpiad differentiate wrt(x) varying(x) name(grad)
double f4(double x) { return x * x; }
// CHECK: generated-name.c:[[@LINE+1]]:9: error: cannot name the generated function 'grad': another '#pragma mpiad differentiate' in this file generates a function of that name; choose another name with name(...)
#pragma mpiad differentiate wrt(x) varying(x) name(grad)
double f5(double x) { return x * x * x; }

// CHECK: generated-name.c:[[@LINE+1]]:9: error: cannot name the generated function 'MPI_Allreduce': names beginning with 'MPI_'
#pragma mpiad differentiate wrt(x) varying(x) name(MPI_Allreduce)
double f6(double x) { return x * x; }
#else
double g_b(double x, double *x_b, double g_bar);

#pragma mpiad differentiate wrt(x) varying(x)
double g(double x) { return sin(x) * x; }

#pragma mpiad differentiate wrt(x) varying(x)
double h(double x) { return x * x; }

double use(void) {
  double gb = 0.0, hb = 0.0;
  g_b(1.0, &gb, 1.0);
  h_b(2.0, &hb, 1.0); /* no prototype: defined right after h */
  return gb + hb;
}
#endif
