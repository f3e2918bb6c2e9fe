/*
 * vmath.c - one math function over a whole replica axis at once.
 *
 * In a batched adjoint (F_bv) a loop over the R replicas evaluates
 * `h = tanh(a[r])` once per replica, a scalar libm call each time: in the
 * NNPDF-style fits of bench/replicas.sh that is most of the forward sweep.
 * The generated code calls mpiad_vec_tanh(&a[0], R, slot) before the loop
 * instead and reads the value of replica r from the returned array.  Where
 * glibc's vector math library (libmvec, glibc 2.35 or later, linked through
 * -lm's AS_NEEDED) was found at build time, the calls go to its 4-wide AVX2
 * variants on processors that have AVX2 and to its 2-wide SSE variants
 * otherwise (MPIAD_VECTOR_MATH=libm|sse|avx2 chooses); else, and for the
 * last values that do not fill a vector, to libm.  libmvec's
 * results are within 4 units in the last place of the exact value, like
 * libm's, but not always bitwise equal to them.
 */
#include "mpiad.h"
#include "requests.h" /* mpiad_impl_fatal */

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = MPIAD_VEC_SLOTS };

/* Per slot, a buffer for the results, grown as needed and kept. */
static double *slot_buf[SLOTS];
static long slot_cap[SLOTS];

static double *slot_of(int slot, long n) {
  if (slot < 0 || slot >= SLOTS)
    mpiad_impl_fatal("vector math", "slot out of range (%d)", slot);
  if (n > slot_cap[slot]) {
    double *b = realloc(slot_buf[slot], (size_t)n * sizeof *b);
    if (!b)
      mpiad_impl_fatal("vector math", "out of memory for the results (%ld)", n);
    slot_buf[slot] = b;
    slot_cap[slot] = n;
  }
  return slot_buf[slot];
}

#if defined(MPIAD_HAVE_LIBMVEC) && (defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)))
#include <immintrin.h>

/* 0: libm only, 1: SSE (2 lanes), 2: AVX2 (4 lanes).  The best this
 * processor has, or MPIAD_VECTOR_MATH=libm|sse|avx2 (the tests use it to
 * run every path; avx2 without AVX2 gives sse). */
static int vector_isa(void) {
  static int isa = -1;
  if (isa < 0) {
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") ? 2 : 1;
    const char *e = getenv("MPIAD_VECTOR_MATH");
    isa = !e || !strcmp(e, "avx2") ? avx2 : !strcmp(e, "sse") ? 1
          : !strcmp(e, "libm")     ? 0
                                   : avx2;
  }
  return isa;
}

/* The x86-64 vector function ABI's names: 'b' SSE, 2 lanes; 'd' AVX2, 4. */
#define VEC_FUNCTION(f)                                                        \
  __m128d _ZGVbN2v_##f(__m128d);                                               \
  __attribute__((target("avx2"))) __m256d _ZGVdN4v_##f(__m256d);              \
  __attribute__((target("avx2"))) static long f##_avx2(const double *x,        \
                                                       double *y, long n) {    \
    long i = 0;                                                                \
    for (; i + 4 <= n; i += 4)                                                 \
      _mm256_storeu_pd(&y[i], _ZGVdN4v_##f(_mm256_loadu_pd(&x[i])));          \
    return i;                                                                  \
  }                                                                            \
  static long f##_sse(const double *x, double *y, long n) {                    \
    long i = 0;                                                                \
    for (; i + 2 <= n; i += 2)                                                 \
      _mm_storeu_pd(&y[i], _ZGVbN2v_##f(_mm_loadu_pd(&x[i])));                \
    return i;                                                                  \
  }                                                                            \
  const double *mpiad_vec_##f(const double *x, long n, int slot) {             \
    double *y = slot_of(slot, n);                                              \
    int isa = vector_isa();                                                    \
    long i = isa == 2 ? f##_avx2(x, y, n) : isa == 1 ? f##_sse(x, y, n) : 0;   \
    for (; i < n; ++i)                                                         \
      y[i] = f(x[i]);                                                          \
    return y;                                                                  \
  }
#else
#define VEC_FUNCTION(f)                                                        \
  const double *mpiad_vec_##f(const double *x, long n, int slot) {             \
    double *y = slot_of(slot, n);                                              \
    for (long i = 0; i < n; ++i)                                               \
      y[i] = f(x[i]);                                                          \
    return y;                                                                  \
  }
#endif

VEC_FUNCTION(tanh)
VEC_FUNCTION(exp)
VEC_FUNCTION(log)
VEC_FUNCTION(sin)
VEC_FUNCTION(cos)
