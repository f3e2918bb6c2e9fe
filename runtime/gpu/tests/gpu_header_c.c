/*
 * gpu_header_c.c - mpiad_gpu.h from C: the header compiles as C11 and a C
 * program links against libmpiad_gpu (generated host code may be C, with
 * its kernels in a separate .cu file).  Runs a few calls on one rank
 * (a collective, the batch, a tangent helper, a sendrecv).
 */
#include "mpiad_gpu.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, ndev = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int have = cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0, all = 0;
  (void)cudaGetLastError();
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (rank == 0)
      printf("no CUDA device: skipped\n");
    MPI_Finalize();
    return 77;
  }
  MPIAD_GPU_CHECK(cudaSetDevice(rank % ndev));
  int fails = 0;
  const char *path = mpiad_gpu_comm_path(MPI_COMM_WORLD);
  if (!path) {
    fprintf(stderr, "rank %d: %s\n", rank, mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* allreduce SUM of rank + 1, then a batch that adds the same sum again */
  double h = rank + 1.0, got = 0.0;
  double *d = mpiad_gpu_calloc(1, sizeof(double));
  double *p = mpiad_gpu_malloc(sizeof(double));
  MPIAD_GPU_CHECK(cudaMemcpy(p, &h, sizeof h, cudaMemcpyHostToDevice));
  mpiad_result_t r =
      mpiad_gpu_allreduce(p, d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  mpiad_gpu_batch b;
  mpiad_gpu_batch_begin(&b, MPI_COMM_WORLD);
  mpiad_gpu_batch_add_f64(&b, p, d, 1);
  if (r == MPIAD_SUCCESS)
    r = mpiad_gpu_batch_allreduce(&b);
  if (r != MPIAD_SUCCESS) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, mpiad_result_string(r),
            mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPIAD_GPU_CHECK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
  double want = (double)size * (size + 1); /* twice the sum of 1..size */
  if (got != want) {
    fprintf(stderr, "rank %d: allreduce + batch = %.17g, want %.17g\n", rank,
            got, want);
    fails++;
  }
  if (mpiad_gpu_blocks(1) != 1 || mpiad_gpu_record_count() != 0)
    fails++;

  /* A tangent helper and a sendrecv from C: allreduce SUM of rank + 1 with
   * tangent 10 (rank + 1), then a ring shift of both. */
  double hd = 10.0 * (rank + 1), v[4] = {0, 0, 0, 0};
  double *pd = mpiad_gpu_malloc(sizeof(double));
  double *q = mpiad_gpu_calloc(4, sizeof(double));
  MPIAD_GPU_CHECK(cudaMemcpy(pd, &hd, sizeof hd, cudaMemcpyHostToDevice));
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  r = mpiad_gpu_allreduce_tan(p, pd, q, q + 1, 1, MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD);
  if (r == MPIAD_SUCCESS)
    r = mpiad_gpu_sendrecv_tan(p, pd, 1, MPI_DOUBLE, next, 0, q + 2, q + 3, 1,
                               MPI_DOUBLE, prev, 0, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE);
  if (r != MPIAD_SUCCESS) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, mpiad_result_string(r),
            mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPIAD_GPU_CHECK(cudaMemcpy(v, q, sizeof v, cudaMemcpyDeviceToHost));
  double sum = (double)size * (size + 1) / 2;
  if (v[0] != sum || v[1] != 10.0 * sum || v[2] != prev + 1.0 ||
      v[3] != 10.0 * (prev + 1)) {
    fprintf(stderr,
            "rank %d: allreduce_tan / sendrecv_tan = %g %g %g %g, want %g %g "
            "%g %g\n",
            rank, v[0], v[1], v[2], v[3], sum, 10.0 * sum, prev + 1.0,
            10.0 * (prev + 1));
    fails++;
  }
  mpiad_gpu_free(pd);
  mpiad_gpu_free(q);
  mpiad_gpu_free(d);
  mpiad_gpu_free(p);
  int total = 0;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("gpu_header_c: path %s: %s\n", path, total ? "FAIL" : "PASS");
  MPI_Finalize();
  return total ? 1 : 0;
}
