// A differentiate pragma on a block inside a function (Outline.cpp): what
// cannot become a function of its own is a located error at the user's
// line, and so is an error that a later stage finds inside the block.
// RUN: not %mpiad-emit -DOUTLINE %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTLINE --implicit-check-not=error:
// RUN: not %mpiad-emit -DLATER %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LATER --implicit-check-not=error:
#include <mpi.h>

#ifdef OUTLINE
double g(double *x, int n) {
  double s = 0;
#pragma mpiad differentiate wrt(x) output(s) name(g_b)
  {
    for (int i = 0; i < n; i++) {
      if (x[i] < 0)
        // OUTLINE-DAG: block-pragma.c:[[@LINE+1]]:9: error: 'return' in a differentiated block: the block becomes a function of its own, so a return would leave only the block; end the block instead, or move the pragma to the function
        return -1;
      s += x[i] * x[i];
    }
  }
  for (int k = 0; k < 3; k++) {
#pragma mpiad differentiate wrt(x) output(s) name(h_b)
    {
      s += x[k];
      if (s > 10)
        // OUTLINE-DAG: block-pragma.c:[[@LINE+1]]:9: error: 'break' leaves the differentiated block; the block becomes a function of its own: put the loop it belongs to inside the block
        break;
    }
  }
  // OUTLINE-DAG: block-pragma.c:[[@LINE+1]]:9: error: a differentiated block needs name(...): the name of the generated function that you call
#pragma mpiad differentiate wrt(x) output(s)
  {
    s += x[0];
  }
  // OUTLINE-DAG: block-pragma.c:[[@LINE+1]]:9: error: '#pragma mpiad differentiate' inside a function must be followed by a block { ... }, which becomes a function of its own
#pragma mpiad differentiate wrt(x) output(s) name(k_b)
  s += x[1];
  int m = n;
  double v[m];
#pragma mpiad differentiate wrt(x) output(s) name(l_b)
  {
    // OUTLINE-DAG: block-pragma.c:[[@LINE+1]]:5: error: the differentiated block uses 'v', a variable-length array of the enclosing function; allocate it with malloc, or declare it in the block
    v[0] = x[0];
    s += v[0];
  }
  return s;
}
#endif

#ifdef LATER
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[4] = {1, 2, 3, 4}, s = 0;
#pragma mpiad differentiate wrt(x) output(s) varying(x) name(m_b)
  {
    MPI_Request q;
    // LATER: block-pragma.c:[[@LINE+1]]:5: error: 'MPI_Ibarrier' is not supported in a differentiated function yet
    MPI_Ibarrier(MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++)
      s += x[i] * x[i];
  }
  MPI_Finalize();
  return s > 0 ? 0 : 1;
}
#endif
