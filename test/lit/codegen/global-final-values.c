// A function that writes many globals whose old values its reverse sweep
// restores: F_b keeps each one's final value in a new variable and puts it
// back at the end.  Adding those variables while walking the function's
// variables read freed memory once the list grew (mpiad-cc crashed on a
// metamorphic rewrite of realworld/jac1_rows.c, seed 479; that crash comes
// back with `test/random/run_metamorphic.py --cc build/bin/mpiad-cc --only
// test/realworld/jac1_rows.c --seed 479`).  Here many globals keep their
// final values, and F_b must leave each as f does.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// RUN: %mpiad-cc %s -o %t && %mpirun 1 %t | FileCheck --check-prefix=EXE %s
// RUN: %mpirun 2 %t | FileCheck --check-prefix=EXE %s
#include <mpi.h>
#include <stdio.h>
#include <math.h>

double g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16, g17, g18, g19, g20, g21, g22, g23;

#pragma mpiad differentiate wrt(x) output(return) varying(x)
double f(const double *x, int m) {
  double s = 0.0;
  for (int k = 0; k < m; k++) {
    g0 = sin(x[k] + 0.0) * g0 + x[k];
    g1 = sin(x[k] + 1.0) * g1 + x[k];
    g2 = sin(x[k] + 2.0) * g2 + x[k];
    g3 = sin(x[k] + 3.0) * g3 + x[k];
    g4 = sin(x[k] + 4.0) * g4 + x[k];
    g5 = sin(x[k] + 5.0) * g5 + x[k];
    g6 = sin(x[k] + 6.0) * g6 + x[k];
    g7 = sin(x[k] + 7.0) * g7 + x[k];
    g8 = sin(x[k] + 8.0) * g8 + x[k];
    g9 = sin(x[k] + 9.0) * g9 + x[k];
    g10 = sin(x[k] + 10.0) * g10 + x[k];
    g11 = sin(x[k] + 11.0) * g11 + x[k];
    g12 = sin(x[k] + 12.0) * g12 + x[k];
    g13 = sin(x[k] + 13.0) * g13 + x[k];
    g14 = sin(x[k] + 14.0) * g14 + x[k];
    g15 = sin(x[k] + 15.0) * g15 + x[k];
    g16 = sin(x[k] + 16.0) * g16 + x[k];
    g17 = sin(x[k] + 17.0) * g17 + x[k];
    g18 = sin(x[k] + 18.0) * g18 + x[k];
    g19 = sin(x[k] + 19.0) * g19 + x[k];
    g20 = sin(x[k] + 20.0) * g20 + x[k];
    g21 = sin(x[k] + 21.0) * g21 + x[k];
    g22 = sin(x[k] + 22.0) * g22 + x[k];
    g23 = sin(x[k] + 23.0) * g23 + x[k];
    s += g0 * g0 + g1 * g1 + g2 * g2 + g3 * g3 + g4 * g4 + g5 * g5 + g6 * g6 + g7 * g7 + g8 * g8 + g9 * g9 + g10 * g10 + g11 * g11 + g12 * g12 + g13 * g13 + g14 * g14 + g15 * g15 + g16 * g16 + g17 * g17 + g18 * g18 + g19 * g19 + g20 * g20 + g21 * g21 + g22 * g22 + g23 * g23;
  }
  double t;
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

// CHECK: g0_final = g0;
// CHECK: g23_final = g23;
// CHECK: g0 = g0_final;
// CHECK: g23 = g23_final;

static void reset(void) {
  g0 = 0.1 * 1;
  g1 = 0.1 * 2;
  g2 = 0.1 * 3;
  g3 = 0.1 * 4;
  g4 = 0.1 * 5;
  g5 = 0.1 * 6;
  g6 = 0.1 * 7;
  g7 = 0.1 * 8;
  g8 = 0.1 * 9;
  g9 = 0.1 * 10;
  g10 = 0.1 * 11;
  g11 = 0.1 * 12;
  g12 = 0.1 * 13;
  g13 = 0.1 * 14;
  g14 = 0.1 * 15;
  g15 = 0.1 * 16;
  g16 = 0.1 * 17;
  g17 = 0.1 * 18;
  g18 = 0.1 * 19;
  g19 = 0.1 * 20;
  g20 = 0.1 * 21;
  g21 = 0.1 * 22;
  g22 = 0.1 * 23;
  g23 = 0.1 * 24;
}

// EXE: globals as f leaves them 1
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[3] = {0.3, -0.2, 0.5}, xb[3] = {0, 0, 0};
  reset();
  double v = f(x, 3);
  double after[24] = {g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16, g17, g18, g19, g20, g21, g22, g23};
  reset();
  double vb = f_b(x, xb, 3, 1.0);
  int same = v == vb;
  same &= g0 == after[0];
  same &= g1 == after[1];
  same &= g2 == after[2];
  same &= g3 == after[3];
  same &= g4 == after[4];
  same &= g5 == after[5];
  same &= g6 == after[6];
  same &= g7 == after[7];
  same &= g8 == after[8];
  same &= g9 == after[9];
  same &= g10 == after[10];
  same &= g11 == after[11];
  same &= g12 == after[12];
  same &= g13 == after[13];
  same &= g14 == after[14];
  same &= g15 == after[15];
  same &= g16 == after[16];
  same &= g17 == after[17];
  same &= g18 == after[18];
  same &= g19 == after[19];
  same &= g20 == after[20];
  same &= g21 == after[21];
  same &= g22 == after[22];
  same &= g23 == after[23];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("globals as f leaves them %d\n", same);
  MPI_Finalize();
  return 0;
}
