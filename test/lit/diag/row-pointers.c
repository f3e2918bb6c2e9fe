// Row-pointer arrays (double **) that mpiad cannot follow are located
// errors that say what to write; an output whose old values the adjoint
// restores is a warning.
//
// RUN: not %mpiad-emit -DSCRATCH %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCRATCH --implicit-check-not=error:
// RUN: not %mpiad-emit -DPARAMROW %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMROW --implicit-check-not=error:
// RUN: not %mpiad-emit -DPARAMFWD %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMFWD --implicit-check-not=error:
// RUN: not %mpiad-emit -DARRPTR %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARRPTR --implicit-check-not=error:
// RUN: not %mpiad-emit -DREPL %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPL --implicit-check-not=error:
// RUN: not %mpiad-emit -DCKPT %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CKPT --implicit-check-not=error:
// RUN: not %mpiad-emit -DREPLICAS %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPLICAS --implicit-check-not=error:
// RUN: not %mpiad-emit -DCUDA --target=cuda %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDA --implicit-check-not=error:
// RUN: %mpiad-emit -DWARN %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN --implicit-check-not=error:
#include <mpi.h>
#include <stdlib.h>

#ifdef SCRATCH
// SCRATCH: row-pointers.c:[[@LINE+1]]:55: error: scratch parameter 'w' is a row-pointer array (pointer to pointer), whose shadow's rows the adjoint cannot allocate; list it in output(...) and pass a shadow of the same shape, zeroed
#pragma mpiad differentiate wrt(u) varying(u) scratch(w)
double f(double **u, double **w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    w[i][0] = u[i][0] * u[i][0];
    s += w[i][0];
  }
  return s;
}
#endif

#ifdef PARAMROW
#pragma mpiad differentiate wrt(u) output(return, u) varying(u)
double f(double **u, int n) {
  // PARAMROW: row-pointers.c:[[@LINE+1]]:8: error: row of parameter 'u' is reassigned; its shadow's rows are the caller's and cannot follow: assign the elements instead (u[i][j] = ...), or build the rows in a local row-pointer array
  u[0] = u[1];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i][0] * u[i][0];
  return s;
}
#endif

#ifdef PARAMFWD
#pragma mpiad differentiate forward wrt(u) output(return, u) varying(u)
double f(double **u, int n) {
  // PARAMFWD: row-pointers.c:[[@LINE+1]]:8: error: row of parameter 'u' is reassigned; its tangent's rows are the caller's and cannot follow: assign the elements instead (u[i][j] = ...), or build the rows in a local row-pointer array
  u[0] = u[1];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i][0] * u[i][0];
  return s;
}
#endif

#ifdef ARRPTR
#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, const double *y) {
  // ARRPTR: row-pointers.c:[[@LINE+1]]:17: error: 'a' holds pointers to values that carry derivatives (an array of pointers); not supported: use a row-pointer array (double **a with rows from malloc), or the arrays themselves
  const double *a[2];
  a[0] = x;
  a[1] = y;
  return a[0][0] * a[1][0];
}
#endif

#ifdef REPL
// REPL: row-pointers.c:[[@LINE+2]]:19: error: replicated row-pointer array 'u' is read by rank-varying code, whose adjoint must be summed over ranks through its rows; keep it in one contiguous array (u[i * ny + j]), or mark it varying(u)
#pragma mpiad differentiate wrt(u) replicated(u, n) varying(x)
double f(double **u, const double *x, int n, MPI_Comm comm) {
  double s = 0.0, g;
  for (int i = 0; i < n; i++)
    s += u[i][0] * x[i];
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}
#endif

#ifdef CKPT
#pragma mpiad differentiate wrt(u) output(return, u) varying(u)
double f(double **u, int n, int nt) {
  // CKPT: row-pointers.c:[[@LINE+4]]:15: error: cannot snapshot the rows behind 'u' (a row-pointer array, pointer to pointer) for the checkpointed loop: keep the state in one contiguous array (u[i * ny + j]), or remove the checkpoint pragma
#pragma mpiad checkpoint
  for (int t = 0; t < nt; t++)
    for (int i = 0; i < n; i++)
      u[i][0] = u[i][0] * u[i][1];
  return u[0][0];
}
#endif

#ifdef REPLICAS
#pragma mpiad differentiate wrt(w) varying(w) replicated(X, n) replicas(w)
// REPLICAS: row-pointers.c:[[@LINE+1]]:36: error: replicas: 'X' is a row-pointer array (pointer to pointer), which replicas(...) does not support: keep its data in one contiguous array (X[i * ny + j])
double f(const double *w, double **X, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[0] * X[i][0];
  return s;
}
#endif

#ifdef CUDA
#pragma mpiad differentiate wrt(u) varying(u)
double f(double **u, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    // CUDA: row-pointers.c:[[@LINE+1]]:7: error: 'u' is a row-pointer array (pointer to pointer) that carries derivatives, which --target=cuda does not support: keep its data in one contiguous array (u[i * ny + j])
    s += u[i][0] * u[i][0];
  return s;
}
#endif

#ifdef WARN
#pragma mpiad differentiate wrt(u) output(return, u) varying(u)
// WARN: row-pointers.c:[[@LINE+1]]:19: warning: after f_b returns, output 'u' does not hold its final values: the adjoint restores the old values its reverse sweep reads, and cannot put the final values back (the shape of a row-pointer array is not known); call f if you need them [-Wmpiad-restored-output]
double f(double **u, int n) {
  for (int i = 0; i < n; i++)
    u[i][0] = u[i][0] * u[i][0];
  return u[0][0];
}
#endif
