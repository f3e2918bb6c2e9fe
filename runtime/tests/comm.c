/*
 * comm.c - unit test of the adjoint communication helpers: root factor and
 * batches (mixed f64/f32 segments, in place and not, exactly one
 * MPI_Allreduce per non-empty batch and none for an empty one, growth past
 * the inline storage, nesting, sub-communicators).
 */
#include "mpiad.h"
#include "rt_test.h"

#include <stdlib.h>

/* Counts MPI_Allreduce calls through the MPI profiling interface. */
static int allreduce_calls;

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  allreduce_calls++;
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

static void test_root_factor(void) {
  double f = mpiad_root_factor(MPI_COMM_WORLD);
  RT_CHECK(f == (rt_rank == 0 ? 1.0 : 0.0), "rank %d factor %g", rt_rank, f);
  double sum = 0.0;
  PMPI_Allreduce(&f, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  RT_CHECK(sum == 1.0, "sum of factors %g", sum);
}

static void test_mixed_batch(void) {
  enum { NA = 1000, NB = 70000, NC = 300, ND = 17 };
  const double P = rt_size, R = rt_rank, T = P * (P - 1) / 2; /* sum of r */
  double *a = malloc(NA * sizeof *a), *a_dst = malloc(NA * sizeof *a);
  double *b = malloc(NB * sizeof *b);
  float c[NC], c_dst[NC], d[ND];
  for (int k = 0; k < NA; ++k) {
    a[k] = R + k;
    a_dst[k] = 100.0 + k;
  }
  for (int k = 0; k < NB; ++k)
    b[k] = 0.5 * R + k;
  for (int k = 0; k < NC; ++k) {
    c[k] = (float)R + 0.25f * (float)k;
    c_dst[k] = 1.0f;
  }
  for (int k = 0; k < ND; ++k)
    d[k] = (float)(k * (rt_rank + 1));

  int before = allreduce_calls;
  mpiad_batch bt;
  mpiad_batch_begin(&bt, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&bt, a, a_dst, NA);
  mpiad_batch_add_f64(&bt, b, b, NB);    /* in place */
  mpiad_batch_add_f64(&bt, a, a_dst, 0); /* ignored */
  mpiad_batch_add_f32(&bt, c, c_dst, NC);
  mpiad_batch_add_f32(&bt, d, d, ND); /* in place */
  mpiad_result_t r = mpiad_batch_allreduce(&bt);
  RT_CHECK(r == MPIAD_SUCCESS, "%s", mpiad_result_string(r));
  RT_CHECK(allreduce_calls - before == 1, "%d calls", allreduce_calls - before);

  int bad = 0;
  for (int k = 0; k < NA; ++k)
    bad += a[k] != R + k || a_dst[k] != 100.0 + k + T + P * k;
  RT_CHECK(bad == 0, "f64 segment: %d wrong (a_dst[1] = %g)", bad, a_dst[1]);
  bad = 0;
  for (int k = 0; k < NB; ++k)
    bad += b[k] != T / 2 + P * k;
  RT_CHECK(bad == 0, "in-place f64 segment: %d wrong (b[3] = %g)", bad, b[3]);
  bad = 0;
  for (int k = 0; k < NC; ++k)
    bad += c[k] != (float)R + 0.25f * (float)k ||
           c_dst[k] != (float)(1.0 + T + P * 0.25 * k);
  RT_CHECK(bad == 0, "f32 segment: %d wrong (c_dst[1] = %g)", bad,
           (double)c_dst[1]);
  bad = 0;
  for (int k = 0; k < ND; ++k)
    bad += d[k] != (float)(k * (T + P));
  RT_CHECK(bad == 0, "in-place f32 segment: %d wrong (d[1] = %g)", bad,
           (double)d[1]);
  free(a);
  free(a_dst);
  free(b);
}

/* float partials are summed in double and rounded once. */
static void test_f32_in_double(void) {
  float x = rt_rank == 0 ? 1.0f : 0x1p-24f, y = 0.0f;
  mpiad_batch bt;
  mpiad_batch_begin(&bt, MPI_COMM_WORLD);
  mpiad_batch_add_f32(&bt, &x, &y, 1);
  RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_SUCCESS, "allreduce");
  float want = (float)(1.0 + (rt_size - 1) * 0x1p-24);
  RT_CHECK(y == want, "got %a want %a", (double)y, (double)want);
}

static void test_empty_batch(void) {
  int before = allreduce_calls;
  mpiad_batch bt;
  mpiad_batch_begin(&bt, MPI_COMM_WORLD);
  RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_SUCCESS, "empty");
  double v = 1.0;
  mpiad_batch_begin(&bt, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&bt, &v, &v, 0);
  RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_SUCCESS, "zero-length");
  RT_CHECK(allreduce_calls == before, "%d MPI calls for empty batches",
           allreduce_calls - before);
  /* A closed batch cannot be reduced again. */
  RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_ERR_ARG, "closed batch");
  RT_CHECK(allreduce_calls == before, "MPI call on a closed batch");
}

/* More segments than the inline storage, twice (the second reuses). */
static void test_many_segments(void) {
  enum { S = 40 };
  for (int pass = 0; pass < 2; ++pass) {
    double part[S][3], dst[S][3];
    mpiad_batch bt;
    mpiad_batch_begin(&bt, MPI_COMM_WORLD);
    for (int s = 0; s < S; ++s) {
      for (int k = 0; k < 3; ++k) {
        part[s][k] = s + k + rt_rank;
        dst[s][k] = -1.0;
      }
      mpiad_batch_add_f64(&bt, part[s], dst[s], 3);
    }
    int before = allreduce_calls;
    RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_SUCCESS, "pass %d", pass);
    RT_CHECK(allreduce_calls - before == 1, "%d calls",
             allreduce_calls - before);
    int bad = 0;
    double P = rt_size, T = P * (P - 1) / 2;
    for (int s = 0; s < S; ++s)
      for (int k = 0; k < 3; ++k)
        bad += dst[s][k] != -1.0 + P * (s + k) + T;
    RT_CHECK(bad == 0, "pass %d: %d wrong", pass, bad);
  }
}

static void test_nesting(void) {
  double o = 1.0, o_dst = 0.0, i = 2.0, i_dst = 0.0;
  mpiad_batch outer, inner;
  mpiad_batch_begin(&outer, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&outer, &o, &o_dst, 1);
  mpiad_batch_begin(&inner, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&inner, &i, &i_dst, 1);
  RT_CHECK(mpiad_batch_allreduce(&inner) == MPIAD_SUCCESS, "inner");
  RT_CHECK(mpiad_batch_allreduce(&outer) == MPIAD_SUCCESS, "outer");
  RT_CHECK(o_dst == rt_size && i_dst == 2.0 * rt_size, "%g %g", o_dst, i_dst);

  /* Adding to the outer batch while an inner one is open is an error,
   * reported by the outer allreduce, which then communicates nothing. */
  o_dst = i_dst = 0.0;
  mpiad_batch_begin(&outer, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&outer, &o, &o_dst, 1);
  mpiad_batch_begin(&inner, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&outer, &o, &o_dst, 1);
  mpiad_batch_add_f64(&inner, &i, &i_dst, 1);
  RT_CHECK(mpiad_batch_allreduce(&inner) == MPIAD_SUCCESS, "inner");
  int before = allreduce_calls;
  RT_CHECK(mpiad_batch_allreduce(&outer) == MPIAD_ERR_ARG, "outer");
  RT_CHECK(allreduce_calls == before && o_dst == 0.0, "outer communicated");

  mpiad_batch_begin(&outer, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&outer, NULL, &o_dst, 1);
  RT_CHECK(mpiad_batch_allreduce(&outer) == MPIAD_ERR_ARG, "NULL partial");
}

/* The batch reduces over its own communicator. */
static void test_sub_comm(void) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rt_rank % 2, rt_rank, &half);
  int hsize;
  MPI_Comm_size(half, &hsize);
  double one = 1.0, count = 0.0;
  mpiad_batch bt;
  mpiad_batch_begin(&bt, half);
  mpiad_batch_add_f64(&bt, &one, &count, 1);
  RT_CHECK(mpiad_batch_allreduce(&bt) == MPIAD_SUCCESS, "sub comm");
  RT_CHECK(count == hsize, "got %g want %d", count, hsize);
  RT_CHECK(mpiad_root_factor(half) == (rt_rank < 2 ? 1.0 : 0.0), "root");
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  test_root_factor();
  test_mixed_batch();
  test_f32_in_double();
  test_empty_batch();
  test_many_segments();
  test_nesting();
  test_sub_comm();
  RT_CHECK(strcmp(mpiad_result_string(MPIAD_ERR_NOMEM), "MPIAD_ERR_NOMEM") == 0,
           "result string");
  return rt_finish("runtime.comm");
}
