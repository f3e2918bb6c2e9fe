// header_cxx.cpp - mpiad.h compiles and links from C++ (extern "C" guards,
// no C-only constructs in the inline tape functions).
#include "mpiad.h"

#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int fail = 0;
  mpiad_push_f64(1.5);
  mpiad_push_ptr(&fail);
  fail |= mpiad_pop_ptr() != static_cast<void *>(&fail);
  fail |= mpiad_pop_f64() != 1.5;
  double v = 2.0;
  mpiad_batch b;
  mpiad_batch_begin(&b, MPI_COMM_WORLD);
  mpiad_batch_add_f64(&b, &v, &v, 1);
  fail |= mpiad_batch_allreduce(&b) != MPIAD_SUCCESS;
  fail |= v != 2.0;
  std::printf("runtime.header_cxx: %s\n", fail ? "FAIL" : "PASS");
  MPI_Finalize();
  return fail;
}
