/* Corpus program: a 2-D star stencil of radius 2 on a grid of ranks, in the
 * shape of the Parallel Research Kernels' MPI1/Stencil/stencil.c
 * (github.com/ParRes/Kernels). Written for mpiad; it reproduces that
 * program's idioms, not its text: IN/OUT/WEIGHT index macros, a datatype
 * macro, `for (kk = 0, j = ...; ...)` headers with `buf[kk++] = IN(i, j)`,
 * MAX/MIN in loop bounds, Irecv/Isend/Wait into a request array,
 * `WEIGHT(0, ii) = WEIGHT(ii, 0) = ...`, and the communication buffers from
 * prk_malloc (posix_memalign) released with prk_free.
 * The only mpiad edit: the pragma before stencil_norm.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/stencil2d_star_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 * The reverse of the stencil is a gather over the whole nest, read through
 * the index macros (row stride `width + 2 * RADIUS`), and the touch's rows
 * are restored before its reversed loop:
 * RUN: %mpiad-emit -Dmain=program_main %s -o - | sed '/^ \* [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
 * GEN-LABEL: double stencil_norm_b(
 * GEN: mpiad_pop_f64_array(&in[
 * GEN-NEXT: for (i = iend; i >= istart; i--) {
 * GEN: reverse of the stencil nest over j2, i2, as a gather over the whole nest (in_b at every offset)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* PRK's allocator (common/prk_util.h): aligned storage from posix_memalign. */
#define PRK_ALIGNMENT 64
static inline void *prk_malloc(size_t bytes) {
  void *ptr = NULL;
  int ret = posix_memalign(&ptr, PRK_ALIGNMENT, bytes);
  if (ret)
    ptr = NULL;
  return ptr;
}
static inline void prk_free(void *p) { free(p); }

#define RADIUS 2
#define DTYPE double
#define MPI_DTYPE MPI_DOUBLE
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define IN(i, j) in[(i) - istart + RADIUS + ((j) - jstart + RADIUS) * (width + 2 * RADIUS)]
#define OUT(i, j) out[(i) - istart + ((j) - jstart) * width]
#define WEIGHT(ii, jj) weight[ii + RADIUS][jj + RADIUS]

/* Applies `iterations` sweeps of the star stencil to the tile [istart, iend] x
 * [jstart, jend] of an n x n grid (in has a halo of RADIUS), accumulating into
 * out, and returns the global sum of squares of out. */
#pragma mpiad differentiate wrt(in) output(return, in) varying(in) scratch(out[(iend - istart + 1) * (jend - jstart + 1)])
double stencil_norm(DTYPE *in, DTYPE *out, int n, int iterations, int istart, int iend,
                    int jstart, int jend, int my_IDx, int my_IDy, int Num_procsx,
                    int Num_procsy, MPI_Comm comm) {
  int i, j, ii, jj, kk, iter;
  int width = iend - istart + 1, height = jend - jstart + 1;
  int my_ID = my_IDy * Num_procsx + my_IDx;
  int right_nbr = my_ID + 1, left_nbr = my_ID - 1;
  int top_nbr = my_ID + Num_procsx, bottom_nbr = my_ID - Num_procsx;
  DTYPE weight[2 * RADIUS + 1][2 * RADIUS + 1];
  MPI_Request request[8];
  MPI_Status status[8];
  DTYPE *top_buf_out = (DTYPE *)prk_malloc(4 * sizeof(DTYPE) * RADIUS * width);
  DTYPE *top_buf_in = top_buf_out + RADIUS * width;
  DTYPE *bottom_buf_out = top_buf_out + 2 * RADIUS * width;
  DTYPE *bottom_buf_in = top_buf_out + 3 * RADIUS * width;
  DTYPE *right_buf_out = (DTYPE *)prk_malloc(4 * sizeof(DTYPE) * RADIUS * height);
  DTYPE *right_buf_in = right_buf_out + RADIUS * height;
  DTYPE *left_buf_out = right_buf_out + 2 * RADIUS * height;
  DTYPE *left_buf_in = right_buf_out + 3 * RADIUS * height;
  DTYPE local_norm, norm;

  for (jj = -RADIUS; jj <= RADIUS; jj++)
    for (ii = -RADIUS; ii <= RADIUS; ii++)
      WEIGHT(ii, jj) = (DTYPE)0.0;
  for (ii = 1; ii <= RADIUS; ii++) {
    WEIGHT(0, ii) = WEIGHT(ii, 0) = (DTYPE)(1.0 / (2.0 * ii * RADIUS));
    WEIGHT(0, -ii) = WEIGHT(-ii, 0) = -(DTYPE)(1.0 / (2.0 * ii * RADIUS));
  }

  for (iter = 0; iter <= iterations; iter++) {
    if (my_IDy < Num_procsy - 1) {
      MPI_Irecv(top_buf_in, RADIUS * width, MPI_DTYPE, top_nbr, 101, comm, &(request[1]));
      for (kk = 0, j = jend - RADIUS + 1; j <= jend; j++)
        for (i = istart; i <= iend; i++)
          top_buf_out[kk++] = IN(i, j);
      MPI_Isend(top_buf_out, RADIUS * width, MPI_DTYPE, top_nbr, 99, comm, &(request[0]));
    }
    if (my_IDy > 0) {
      MPI_Irecv(bottom_buf_in, RADIUS * width, MPI_DTYPE, bottom_nbr, 99, comm, &(request[3]));
      for (kk = 0, j = jstart; j <= jstart + RADIUS - 1; j++)
        for (i = istart; i <= iend; i++)
          bottom_buf_out[kk++] = IN(i, j);
      MPI_Isend(bottom_buf_out, RADIUS * width, MPI_DTYPE, bottom_nbr, 101, comm, &(request[2]));
    }
    if (my_IDy < Num_procsy - 1) {
      MPI_Wait(&(request[0]), &(status[0]));
      MPI_Wait(&(request[1]), &(status[1]));
      for (kk = 0, j = jend + 1; j <= jend + RADIUS; j++)
        for (i = istart; i <= iend; i++)
          IN(i, j) = top_buf_in[kk++];
    }
    if (my_IDy > 0) {
      MPI_Wait(&(request[2]), &(status[2]));
      MPI_Wait(&(request[3]), &(status[3]));
      for (kk = 0, j = jstart - RADIUS; j <= jstart - 1; j++)
        for (i = istart; i <= iend; i++)
          IN(i, j) = bottom_buf_in[kk++];
    }

    if (my_IDx < Num_procsx - 1) {
      MPI_Irecv(right_buf_in, RADIUS * height, MPI_DTYPE, right_nbr, 1010, comm, &(request[1 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = iend - RADIUS + 1; i <= iend; i++)
          right_buf_out[kk++] = IN(i, j);
      MPI_Isend(right_buf_out, RADIUS * height, MPI_DTYPE, right_nbr, 990, comm, &(request[0 + 4]));
    }
    if (my_IDx > 0) {
      MPI_Irecv(left_buf_in, RADIUS * height, MPI_DTYPE, left_nbr, 990, comm, &(request[3 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = istart; i <= istart + RADIUS - 1; i++)
          left_buf_out[kk++] = IN(i, j);
      MPI_Isend(left_buf_out, RADIUS * height, MPI_DTYPE, left_nbr, 1010, comm, &(request[2 + 4]));
    }
    if (my_IDx < Num_procsx - 1) {
      MPI_Wait(&(request[0 + 4]), &(status[0 + 4]));
      MPI_Wait(&(request[1 + 4]), &(status[1 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = iend + 1; i <= iend + RADIUS; i++)
          IN(i, j) = right_buf_in[kk++];
    }
    if (my_IDx > 0) {
      MPI_Wait(&(request[2 + 4]), &(status[2 + 4]));
      MPI_Wait(&(request[3 + 4]), &(status[3 + 4]));
      for (kk = 0, j = jstart; j <= jend; j++)
        for (i = istart - RADIUS; i <= istart - 1; i++)
          IN(i, j) = left_buf_in[kk++];
    }

    /* Apply the stencil operator */
    for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++) {
      for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++) {
        for (jj = -RADIUS; jj <= RADIUS; jj++)
          OUT(i, j) += WEIGHT(0, jj) * IN(i, j + jj);
        for (ii = -RADIUS; ii < 0; ii++)
          OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
        for (ii = 1; ii <= RADIUS; ii++)
          OUT(i, j) += WEIGHT(ii, 0) * IN(i + ii, j);
      }
    }
    /* a nonlinear touch, so that the gradient depends on the state */
    for (j = jstart; j <= jend; j++)
      for (i = istart; i <= iend; i++)
        IN(i, j) += 0.1 * sin(IN(i, j));
  }

  local_norm = (DTYPE)0.0;
  for (j = MAX(jstart, RADIUS); j <= MIN(n - RADIUS - 1, jend); j++)
    for (i = MAX(istart, RADIUS); i <= MIN(n - RADIUS - 1, iend); i++)
      local_norm += OUT(i, j) * OUT(i, j);
  MPI_Allreduce(&local_norm, &norm, 1, MPI_DTYPE, MPI_SUM, comm);
  prk_free(top_buf_out);
  prk_free(right_buf_out);
  return norm;
}

int main(int argc, char **argv) {
  int my_ID, Num_procs, Num_procsx, Num_procsy, n = 12, iterations = 2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_ID);
  MPI_Comm_size(MPI_COMM_WORLD, &Num_procs);
  for (Num_procsx = (int)(sqrt(Num_procs + 1)); Num_procsx > 0; Num_procsx--)
    if (!(Num_procs % Num_procsx)) {
      Num_procsy = Num_procs / Num_procsx;
      break;
    }
  int my_IDx = my_ID % Num_procsx, my_IDy = my_ID / Num_procsx;
  int width = n / Num_procsx, height = n / Num_procsy;
  int istart = my_IDx * width, iend = istart + width - 1;
  int jstart = my_IDy * height, jend = jstart + height - 1;
  DTYPE *in = malloc(sizeof(DTYPE) * (width + 2 * RADIUS) * (height + 2 * RADIUS));
  DTYPE *out = malloc(sizeof(DTYPE) * width * height);
  for (int j = jstart; j <= jend; j++)
    for (int i = istart; i <= iend; i++) {
      IN(i, j) = 1.0 * i + 1.0 * j;
      OUT(i, j) = 0.0;
    }
  double norm = stencil_norm(in, out, n, iterations, istart, iend, jstart, jend, my_IDx,
                             my_IDy, Num_procsx, Num_procsy, MPI_COMM_WORLD);
  if (my_ID == 0)
    printf("norm = %g\n", norm);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
