// Messages about a differentiated block name what the user wrote (issue
// 40, found on miniWeather and the D2Q9 coursework by a tester who did not
// write mpiad): the block's outlined function and its signature are the
// tool's, so a message about one of its variables points at the block's
// first use of it, not at `static void mpiad_block_L..(...)`; a name in a
// clause that is a global says so and what to write; a length that cannot
// be inferred is reported at the clause and names the helper's variable as
// written (`state_tmp[perm[i]]`, not the inlined copy's name).
//
// RUN: not %mpiad-cc -DCASE=1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=C1 --implicit-check-not error:
// RUN: not %mpiad-cc -DCASE=2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=C2 --implicit-check-not error:
// RUN: not %mpiad-cc -DCASE=3 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=C3 --implicit-check-not error:
#include <mpi.h>
#include <stdlib.h>

double *state;
int n;

static void step(double *state_tmp, const double *x, const int *perm, int m) {
  for (int i = 0; i < m; i++)
    state_tmp[perm[i]] = x[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[4] = {1, 2, 3, 4}, J = 0.0;
  double *w = malloc(4 * sizeof(double));
  int perm[4] = {3, 2, 1, 0};
#if CASE == 1
#pragma mpiad differentiate wrt(x) output(J) varying(x) name(blk_b)
  {
    // C1: block-messages.c:[[@LINE+2]]:35: error: 'w', used in the block, carries derivatives but has no shadow; add it to wrt(...) or output(...), or to scratch(...)
    // C1-NEXT: {{^}}   [[@LINE+1]] |     for (int i = 0; i < 4; i++) { w[i] = x[i] * x[i];
    for (int i = 0; i < 4; i++) { w[i] = x[i] * x[i]; J += w[i]; }
  }
#elif CASE == 2
  // C2: block-messages.c:[[@LINE+1]]:33: error: 'state' in wrt(...) is not a variable of the enclosing function that the block uses; a block's clauses name those ('state' is a global: copy it into a local before the block, use the local in the block and name it here)
#pragma mpiad differentiate wrt(state) output(J) varying(x) name(blk_b)
  {
    for (int i = 0; i < n; i++)
      J += state[i] * x[i % 4];
  }
#else
  // C3: block-messages.c:[[@LINE+1]]:44: error: cannot infer the length of scratch array 'w' (from 'state_tmp[perm[i]]'); write scratch(w[LENGTH]) in the pragma
#pragma mpiad differentiate wrt(x) scratch(w) output(J) varying(x) name(blk_b)
  {
    step(w, x, perm, 4);
    for (int i = 0; i < 4; i++)
      J += w[i] * w[i];
  }
#endif
  free(w);
  MPI_Finalize();
  return 0;
}
