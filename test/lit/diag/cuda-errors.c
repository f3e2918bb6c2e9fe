// What the CUDA target cannot generate yet is a located error, never wrong
// code: values the adjoint of a kernel would have to record, scalars a
// kernel assigns and the host reads, host arrays in kernels, communication
// that libmpiad_gpu has no device version of (MPI_Scan, a derived datatype
// on device buffers), statements that
// must stay on the host but read device memory, a parallel pragma without
// its loop, checkpointed loops, and independent replicas (replicas(...):
// the replica axis is not mapped onto the grid).
// One case per run (the first error stops the generation of the file).
// RUN: not %mpiad-emit --target=cuda -DRECORD %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=RECORD
// RUN: not test -e %t.cu
// RUN: not %mpiad-emit --target=cuda -DLAST %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: not %mpiad-emit --target=cuda -DHOSTARRAY %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=HOSTARRAY
// RUN: not %mpiad-emit --target=cuda -DSCAN %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=SCAN
// RUN: not %mpiad-emit --target=cuda -DDERIVED %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DERIVED
// RUN: not %mpiad-emit --target=cuda -DRETURN %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not %mpiad-emit --target=cuda -DCHECKPOINT %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=CHECKPOINT
// RUN: not %mpiad-emit --target=cuda -DDANGLING %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DANGLING
// RUN: not %mpiad-emit --target=cuda -DREPLICAS %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=REPLICAS
// RUN: not test -e %t.cu
#include <mpi.h>
#include <math.h>

#ifdef RECORD
#pragma mpiad differentiate wrt(x) varying(x)
double twice(const double *x, int n) {
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    double z = x[i];
    z = z * z;
    s += sin(z);
  }
  return s;
}
#endif
// RECORD: cuda-errors.c:[[@LINE-7]]:12: error: on the CUDA target the reverse sweep of a parallel loop cannot record values, and it needs the value of 'z' that this statement overwrites; compute it into a new variable declared in the loop body

#ifdef LAST
#pragma mpiad differentiate wrt(x) varying(x)
double last(const double *x, int n) {
  double t = 0, s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    t = x[i] * x[i];
    s += t;
  }
  return s + t;
}
#endif
// LAST: cuda-errors.c:[[@LINE-7]]:3: error: 't' is assigned in this parallel loop and used outside it; on the CUDA target a scalar written in a kernel must be a sum (t += ...)

#ifdef HOSTARRAY
#pragma mpiad differentiate wrt(x) varying(x)
double weights(const double *x, int n) {
  double w[2] = {1.0, 2.0};
  double s = 0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++)
    s += w[i % 2] * x[i];
  return s;
}
#endif
// HOSTARRAY: cuda-errors.c:[[@LINE-5]]:3: error: the array 'w' is host memory and is used in a kernel; on the CUDA target arrays must be device pointers

#ifdef SCAN
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void prefix(const double *x, double *y, int n, MPI_Comm comm) {
  MPI_Scan(x, y, n, MPI_DOUBLE, MPI_SUM, comm);
}
#endif
// SCAN: cuda-errors.c:[[@LINE-3]]:3: error: 'MPI_Scan' on device buffers is not supported on the CUDA target yet (libmpiad_gpu has no device version of it)

#ifdef DERIVED
#pragma mpiad differentiate wrt(x) output(y) varying(x)
void column(const double *x, double *y, int n, MPI_Comm comm) {
  MPI_Datatype col;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  MPI_Sendrecv(x, 1, col, 0, 0, y, 1, col, 0, 0, comm, MPI_STATUS_IGNORE);
  MPI_Type_free(&col);
}
#endif
// DERIVED: cuda-errors.c:[[@LINE-4]]:22: error: derived datatype 'col' in 'MPI_Sendrecv' on device buffers is not supported on the CUDA target (libmpiad_gpu moves contiguous MPI_DOUBLE / MPI_FLOAT data); copy the elements into a contiguous device buffer first

#ifdef RETURN
#pragma mpiad differentiate wrt(x)
double first(const double *x, MPI_Comm comm) {
  if (x[0] > 0)
    MPI_Barrier(comm);
  return 2 * x[0];
}
#endif
// RETURN: cuda-errors.c:[[@LINE-5]]:3: error: on the CUDA target this statement must run on the host (it contains the call to 'MPI_Barrier') but it reads or writes device memory; move the element accesses into a '#pragma mpiad parallel' loop or a separate statement

#ifdef DANGLING
#pragma mpiad differentiate wrt(x)
double dangling(const double *x, int n) {
  double s = 0;
#pragma mpiad parallel
  s = x[0];
  return s;
}
#endif
// DANGLING: cuda-errors.c:[[@LINE-5]]:9: error: '#pragma mpiad parallel' must be followed by a for loop

#ifdef CHECKPOINT
#pragma mpiad differentiate wrt(u) output(u)
void relax(double *u, int n, int nt) {
#pragma mpiad checkpoint
  for (int t = 0; t < nt; t++) {
#pragma mpiad parallel
    for (int i = 0; i < n; i++)
      u[i] = 0.5 * u[i] * u[i];
  }
}
#endif
// CHECKPOINT: cuda-errors.c:[[@LINE-8]]:1: error: '#pragma mpiad checkpoint' is not supported on the CUDA target yet: its snapshots are host copies

#ifdef REPLICAS
#pragma mpiad differentiate wrt(w) replicated(w, n) varying(X, y) replicas(w, y)
double fit(const double *w, const double *X, const double *y, int n, MPI_Comm comm) {
  double l = 0.0;
#pragma mpiad parallel
  for (int i = 0; i < n; i++) {
    double e = tanh(X[i] * w[0] + w[1]) - y[i];
    l += e * e;
  }
  MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_DOUBLE, MPI_SUM, comm);
  return l / 2.0;
}
#endif
// REPLICAS: cuda-errors.c:[[@LINE-12]]:76: error: replicas(...) is not supported with --target=cuda yet: fit_bv runs on the host only; generate it from a file compiled without --target=cuda, or call fit_b once per replica
