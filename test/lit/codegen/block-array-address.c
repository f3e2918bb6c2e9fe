// A block of main that takes the size of an array of main: in the block's
// outlined function the array is a pointer parameter, so `sizeof a` is
// rewritten as what it was, the array's size (and `&a` as the whole
// array's address cast to its type: test/realworld/scatterv_dot.c), and
// the array's declared extent is its length (replicated(a) needs none).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK: static void mpiad_block_L{{[0-9]+}}(double a[6], double *out)
// CHECK: memcpy(b, a, sizeof(double[6]));
// CHECK: for (int i = 0; i < (int)(sizeof(double[6]) / sizeof a[0]); i++)
// CHECK-LABEL: void blk_b(
// CHECK: double *a_b_part = mpiad_alloc_zeroed(6, sizeof(double)
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv) {
  double a[6] = {1, 2, 3, 4, 5, 6}, out = 0.0;
  MPI_Init(&argc, &argv);
#pragma mpiad differentiate wrt(a) output(out) replicated(a) name(blk_b)
  {
    double b[6], s = 0.0;
    memcpy(b, a, sizeof a);
    for (int i = 0; i < (int)(sizeof a / sizeof a[0]); i++)
      s += b[i] * b[i] * a[i];
    MPI_Allreduce(&s, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
