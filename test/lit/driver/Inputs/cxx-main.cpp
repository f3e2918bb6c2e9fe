// C++ calls the adjoint through the header --emit-header wrote (included
// twice: its include guard), linked with the C object (test/lit/driver/headers.c).
#include "sq_ad.h"
#include "sq_ad.h"
#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[3] = {1.5, -2.0, 0.25}, xb[3] = {0, 0, 0};
  sumsq_b(x, xb, 3, 1.0);
  bool ok = true;
  for (int i = 0; i < 3; i++)
    ok = ok && xb[i] == 2 * x[i];
  std::printf("C++: grad = %g %g %g: %s\n", xb[0], xb[1], xb[2],
              ok ? "OK" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 1;
}
