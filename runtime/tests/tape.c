/*
 * tape.c - unit test of the tape: round trips of every element kind across
 * many chunk boundaries, arrays spanning chunks, exact byte and high-water
 * counts, chunk reuse, buffers kept whole, release, statistics.
 */
#include "mpiad.h"
#include "rt_test.h"

#include <stdlib.h>

enum { N = 250000 }; /* per kind: 10^6 scalars in all, about 46 chunks */

static char pool[1000];
static unsigned long long f64_pushed; /* f64 elements pushed by this test */

static double f64_of(long i) { return 0.5 * (double)i + rt_rank; }
static float f32_of(long i) { return (float)i * 0.25f - (float)rt_rank; }
static long long i64_of(long i) { return 3LL * i - 7 + 1000000LL * rt_rank; }
static void *ptr_of(long i) { return &pool[(i * 7) % 1000]; }

/* Array pushed after scalar i when i % 997 == 0: length varies. */
static size_t arr_len(long i) { return (size_t)(i % 50) * 13 + 1; }
static double arr_f64(long i, size_t k) { return (double)i + 1e-3 * k; }
static float arr_f32(long i, size_t k) { return (float)(i % 1000) - (float)k; }

/* Pushes the interleaved sequence; returns the bytes it pushed. */
static size_t push_all(void) {
  size_t bytes = 0;
  double a[700];
  float b[700];
  for (long i = 0; i < N; ++i) {
    mpiad_push_f64(f64_of(i));
    f64_pushed++;
    mpiad_push_f32(f32_of(i));
    mpiad_push_i64(i64_of(i));
    mpiad_push_ptr(ptr_of(i));
    bytes +=
        sizeof(double) + sizeof(float) + sizeof(long long) + sizeof(void *);
    if (i % 997 == 0) {
      size_t n = arr_len(i);
      for (size_t k = 0; k < n; ++k) {
        a[k] = arr_f64(i, k);
        b[k] = arr_f32(i, k);
      }
      mpiad_push_f64_array(a, n);
      f64_pushed += n;
      mpiad_push_f32_array(b, n);
      bytes += n * (sizeof(double) + sizeof(float));
    }
  }
  return bytes;
}

/* Pops the sequence in reverse and checks every value. */
static void pop_all(void) {
  double a[700];
  float b[700];
  long bad = 0;
  for (long i = N - 1; i >= 0; --i) {
    if (i % 997 == 0) {
      size_t n = arr_len(i);
      mpiad_pop_f32_array(b, n);
      mpiad_pop_f64_array(a, n);
      for (size_t k = 0; k < n; ++k)
        if (a[k] != arr_f64(i, k) || b[k] != arr_f32(i, k))
          bad++;
    }
    void *p = mpiad_pop_ptr();
    long long q = mpiad_pop_i64();
    float f = mpiad_pop_f32();
    double d = mpiad_pop_f64();
    if (p != ptr_of(i) || q != i64_of(i) || f != f32_of(i) || d != f64_of(i)) {
      if (bad < 5)
        fprintf(stderr, "[rank %d] i=%ld: got %g %g %lld %p\n", rt_rank, i, d,
                (double)f, q, p);
      bad++;
    }
  }
  RT_CHECK(bad == 0, "%ld values differ", bad);
}

static void test_round_trip(void) {
  RT_CHECK(mpiad_tape_bytes() == 0, "%zu", mpiad_tape_bytes());
  size_t pushed = push_all();
  RT_CHECK(mpiad_tape_bytes() == pushed, "bytes %zu, pushed %zu",
           mpiad_tape_bytes(), pushed);
  RT_CHECK(mpiad_tape_peak_bytes() == pushed, "peak %zu, pushed %zu",
           mpiad_tape_peak_bytes(), pushed);
  pop_all();
  RT_CHECK(mpiad_tape_bytes() == 0, "%zu", mpiad_tape_bytes());
  RT_CHECK(mpiad_tape_peak_bytes() == pushed, "peak %zu after pops",
           mpiad_tape_peak_bytes());

  /* Second pass reuses the chunks of the first. */
  mpiad_tape_reset_peak();
  RT_CHECK(mpiad_tape_peak_bytes() == 0, "%zu", mpiad_tape_peak_bytes());
  size_t again = push_all();
  pop_all();
  RT_CHECK(mpiad_tape_peak_bytes() == again, "peak %zu, pushed %zu",
           mpiad_tape_peak_bytes(), again);
}

/* One array of 100000 doubles (13 chunks) starting mid-chunk. */
static void test_big_array(void) {
  enum { M = 100000 };
  double *a = malloc(M * sizeof *a), *b = malloc(M * sizeof *b);
  for (size_t k = 0; k < M; ++k)
    a[k] = (double)k * 1.5 - rt_rank;
  mpiad_push_f64(42.0);
  mpiad_push_f64_array(a, M);
  mpiad_push_f64(43.0);
  RT_CHECK(mpiad_tape_bytes() == (M + 2) * sizeof(double), "%zu",
           mpiad_tape_bytes());
  RT_CHECK(mpiad_pop_f64() == 43.0, "top");
  mpiad_pop_f64_array(b, M);
  RT_CHECK(memcmp(a, b, M * sizeof *a) == 0, "array differs");
  RT_CHECK(mpiad_pop_f64() == 42.0, "bottom");
  /* An array popped element by element comes back last element first. */
  mpiad_push_f64_array(a, 3);
  double z = mpiad_pop_f64(), y = mpiad_pop_f64(), x = mpiad_pop_f64();
  RT_CHECK(x == a[0] && y == a[1] && z == a[2], "%g %g %g", x, y, z);
  mpiad_push_f64_array(NULL, 0); /* no-ops */
  mpiad_pop_f64_array(NULL, 0);
  RT_CHECK(mpiad_tape_bytes() == 0, "%zu", mpiad_tape_bytes());
  free(a);
  free(b);
}

/* The high-water mark is the largest simultaneous total, not a sum of
 * per-stack maxima. */
static void test_peak(void) {
  mpiad_tape_reset_peak();
  for (int i = 0; i < 10; ++i)
    mpiad_push_f64(i);
  for (int i = 0; i < 5; ++i)
    (void)mpiad_pop_f64();
  for (int i = 0; i < 3; ++i)
    mpiad_push_f32((float)i);
  RT_CHECK(mpiad_tape_bytes() == 5 * 8 + 3 * 4, "%zu", mpiad_tape_bytes());
  RT_CHECK(mpiad_tape_peak_bytes() == 80, "peak %zu, want 80",
           mpiad_tape_peak_bytes());
  for (int i = 0; i < 10; ++i)
    mpiad_push_i64(i);
  RT_CHECK(mpiad_tape_peak_bytes() == 40 + 12 + 80, "peak %zu, want 132",
           mpiad_tape_peak_bytes());
  for (int i = 9; i >= 0; --i)
    RT_CHECK(mpiad_pop_i64() == i, "i64 %d", i);
  for (int i = 2; i >= 0; --i)
    RT_CHECK(mpiad_pop_f32() == (float)i, "f32 %d", i);
  for (int i = 4; i >= 0; --i)
    RT_CHECK(mpiad_pop_f64() == i, "f64 %d", i);
  RT_CHECK(mpiad_tape_peak_bytes() == 132, "%zu", mpiad_tape_peak_bytes());

  /* The maximum is reached between pops of different stacks. */
  mpiad_tape_reset_peak();
  for (int i = 0; i < 5; ++i)
    mpiad_push_f32((float)i);
  (void)mpiad_pop_f32(); /* 16 bytes */
  for (int i = 0; i < 10; ++i)
    mpiad_push_i64(i);   /* 96 bytes */
  (void)mpiad_pop_f32(); /* 92 bytes */
  for (int i = 9; i >= 0; --i)
    RT_CHECK(mpiad_pop_i64() == i, "i64 %d", i);
  for (int i = 2; i >= 0; --i)
    RT_CHECK(mpiad_pop_f32() == (float)i, "f32 %d", i);
  RT_CHECK(mpiad_tape_peak_bytes() == 96, "peak %zu, want 96",
           mpiad_tape_peak_bytes());
}

/* Buffers kept whole: handed back in reverse order with their contents,
 * the replacements recycled, and counted in the bytes and the peak. */
static void test_buffers(void) {
  enum { NB = 6, LEN = 1000 };
  double *kept[NB], *spares[NB];
  double *cur = malloc(LEN * sizeof *cur);
  RT_CHECK(cur != NULL, "malloc");
  if (!cur)
    return;
  mpiad_tape_reset_peak();
  size_t before = mpiad_tape_bytes();
  for (int b = 0; b < NB; ++b) {
    for (int k = 0; k < LEN; ++k)
      cur[k] = 1000.0 * b + k;
    mpiad_push_f64(-b); /* interleaved with the stacks */
    kept[b] = cur;
    cur = mpiad_push_buffer(cur, LEN * sizeof *cur);
    RT_CHECK(cur != NULL && cur != kept[b], "replacement %d", b);
  }
  RT_CHECK(mpiad_tape_bytes() == before + NB * (LEN + 1) * sizeof(double),
           "bytes %zu", mpiad_tape_bytes());
  for (int b = NB - 1; b >= 0; --b) {
    double *given = cur;
    spares[b] = given;
    cur = mpiad_pop_buffer(cur, LEN * sizeof *cur);
    RT_CHECK(cur == kept[b], "buffer %d comes back", b);
    RT_CHECK(mpiad_pop_f64() == -b, "f64 between buffers %d", b);
    long bad = 0;
    for (int k = 0; k < LEN; ++k)
      bad += cur[k] != 1000.0 * b + k;
    RT_CHECK(bad == 0, "buffer %d: %ld elements changed", b, bad);
    given[0] = 1.0; /* the spare is still the program's to write until reused */
  }
  RT_CHECK(mpiad_tape_bytes() == before, "bytes %zu", mpiad_tape_bytes());
  RT_CHECK(mpiad_tape_peak_bytes() ==
               before + NB * (LEN + 1) * sizeof(double),
           "peak %zu", mpiad_tape_peak_bytes());
  /* A second push reuses a spare: the last one given back. */
  double *again = mpiad_push_buffer(cur, LEN * sizeof *cur);
  RT_CHECK(again == spares[0], "the replacement is a spare");
  RT_CHECK(mpiad_pop_buffer(again, LEN * sizeof *cur) == cur, "round 2");
  free(cur);
}

static void test_release_and_stats(void) {
  mpiad_tape_release();
  RT_CHECK(mpiad_tape_bytes() == 0, "%zu", mpiad_tape_bytes());
  /* Usable again after release. */
  for (int i = 0; i < 20000; ++i)
    mpiad_push_f64(i);
  for (int i = 19999; i >= 0; --i)
    if (mpiad_pop_f64() != i) {
      RT_CHECK(0, "after release, value %d", i);
      break;
    }

  FILE *f = tmpfile();
  RT_CHECK(f != NULL, "tmpfile");
  if (!f)
    return;
  mpiad_tape_print_stats(f);
  rewind(f);
  char line[256];
  int lines = 0;
  unsigned long long pushes = 0;
  while (fgets(line, sizeof line, f)) {
    lines++;
    if (strstr(line, " f64 "))
      sscanf(line, "mpiad tape: f64 %llu", &pushes);
  }
  fclose(f);
  RT_CHECK(lines == 7, "%d lines", lines);
  /* push_all twice, the big array test, the peak test, the buffer test's 6
     scalars, 20000 here. */
  unsigned long long want = f64_pushed + (100000 + 2 + 3) + 10 + 6 + 20000;
  RT_CHECK(pushes == want, "f64 pushes %llu want %llu", pushes, want);
  if (rt_rank == 0)
    mpiad_tape_print_stats(stdout);
  mpiad_tape_release();
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  test_round_trip();
  test_big_array();
  test_peak();
  test_buffers();
  test_release_and_stats();
  return rt_finish("runtime.tape");
}
