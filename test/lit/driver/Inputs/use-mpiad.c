/* Includes mpiad.h and uses its inline fast paths: compiled under each
   -std= by test/lit/driver/headers.c (C89: declarations first). */
#include "mpiad.h"

double round_trip(double v) {
  double w;
  mpiad_push_f64(v);
  mpiad_push_i64(7);
  w = (double)mpiad_pop_i64();
  return mpiad_pop_f64() + w;
}
