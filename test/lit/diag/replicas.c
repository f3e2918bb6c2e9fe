// Errors of replicas(...): what cannot be batched exactly is said at the
// place, with what to write instead (tool/lib/Replicas.cpp).
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>
#include <stdlib.h>

// CHECK: replicas.c:[[@LINE+1]]:56: error: 'q' in replicas(...) is not a parameter of 'a'
#pragma mpiad differentiate wrt(w) varying(w) replicas(q)
double a(const double *w) { return w[0]; }

// CHECK: replicas.c:[[@LINE+2]]:56: error: cannot infer the length of per-replica array 'w' (from 'w[idx[0]]'); write replicas(w[LENGTH])
// CHECK: replicas.c:[[@LINE+2]]:52: note: the extent of this use
#pragma mpiad differentiate wrt(w) varying(w) replicas(w)
double b(const double *w, const int *idx) { return w[idx[0]]; }

// A loop whose condition depends on each replica's values is masked per
// replica (exec/replicas_loops.c): its condition is evaluated once per
// replica and iteration, so it may not have side effects.
int next_id(void);
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[1])
double c(const double *w, MPI_Comm comm) {
  double x = w[0], g = 1.0;
// CHECK: replicas.c:[[@LINE+1]]:3: error: replicas: the condition of this loop depends on per-replica values, the loop communicates, and its condition has side effects; move them into the loop's body
  while (g > 0.5 && next_id() < 10) {
    x = x * 0.5;
    MPI_Allreduce(&x, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
  return g;
}

// An output that receives per-replica values must hold R copies.
// CHECK: replicas.c:[[@LINE+2]]:33: error: replicas: parameter 'out' holds per-replica values but is not named in replicas(...); name it there, so that it holds R copies back to back
#pragma mpiad differentiate wrt(w) output(out) varying(w) replicas(w[2])
void d(const double *w, double *out) {
  out[0] = w[0] * w[1];
}

// A branch that some replicas take is masked (exec/replicas_masked.c), but
// not around a non-blocking call: its buffer is written at the wait.
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double e(const double *w, int peer, MPI_Comm comm) {
  double s = w[0], g = 0.0;
  MPI_Request rq[2];
  if (s > 3.0) {
// CHECK: replicas.c:[[@LINE+1]]:5: error: replicas: 'MPI_Irecv' runs under a condition that depends on per-replica values, and is a non-blocking call, a completion or a communicator's creation or release, which cannot be masked per replica; use the blocking call, or make the condition depend on shared values only
    MPI_Irecv(&g, 1, MPI_DOUBLE, peer, 0, comm, &rq[0]);
    MPI_Isend(&s, 1, MPI_DOUBLE, peer, 0, comm, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  }
  return g * w[1];
}

// Nor around a call that writes more than its count (a gather's receive
// buffer holds count values per rank).
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double e2(const double *w, double *all, MPI_Comm comm) {
  double s = w[0];
  if (s > 3.0)
// CHECK: replicas.c:[[@LINE+1]]:5: error: replicas: 'MPI_Allgather' runs under a condition that depends on per-replica values, and writes more (or other) elements of 'all' than its count says, which the masked call cannot keep for the replicas that do not take the branch
    MPI_Allgather(&s, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, comm);
  return s * w[1];
}

// MPI_Alltoallw's counts go with a datatype per peer: not batched.
// CHECK: replicas.c:[[@LINE+5]]:3: error: replicas: 'MPI_Alltoallw' takes arrays of counts that its rule does not describe (no 'perrank' in rules/mpi.rules), so they cannot be scaled to carry every replica; in a function with replicas(...) use MPI_Alltoallv
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double f(const double *w, const int *counts, const int *displs,
         const MPI_Datatype *types, MPI_Comm comm) {
  double s[2] = {w[0] * w[1], w[1]}, r[2];
  MPI_Alltoallw(s, counts, displs, types, r, counts, displs, types, comm);
  return r[0];
}

// The status of a message that carries every replica counts all of them.
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[1])
double g(const double *w, int src, MPI_Comm comm) {
  double v = w[0] * 2.0, got = 0.0;
  MPI_Status st;
  int cnt;
  MPI_Sendrecv(&v, 1, MPI_DOUBLE, src, 0, &got, 1, MPI_DOUBLE, src, 0, comm, &st);
// CHECK: replicas.c:[[@LINE+1]]:3: error: replicas: 'MPI_Get_count' would count the elements of every replica, since each message carries all replicas; use the count you sent
  MPI_Get_count(&st, MPI_DOUBLE, &cnt);
  return got * cnt;
}

// A pointer set in a branch that some replicas take, used after it: every
// replica would see the last replica's choice (the reduced program of a
// silent wrong value: the Allreduce between ends the replica loop).
#pragma mpiad differentiate wrt(x) varying(x) replicas(x[2])
double h(const double *x, MPI_Comm comm) {
  double a[2], b[2];
  a[0] = x[0];
  a[1] = 2.0 * x[1];
  b[0] = 3.0 * x[0];
  b[1] = x[1];
  double *p = a;
  if (x[0] > 0.5)
// CHECK: replicas.c:[[@LINE+1]]:7: error: replicas: a pointer assigned under a condition that depends on per-replica values; replicas share their pointers, so each would see the choice of the last one: select the values instead (v = c ? b[k] : a[k]), or declare the pointer inside the branch that uses it
    p = b;
  double t = x[1], u = 0.0;
  MPI_Allreduce(&t, &u, 1, MPI_DOUBLE, MPI_SUM, comm);
  return p[0] * p[1] + u;
}

// A buffer freed on a per-replica path is freed once, at the end, for all
// replicas (exec/replicas_loops.c); not one allocated in a loop, which every
// iteration must free.
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double hfree(const double *w, int n) {
  double s = 0.0;
  for (int k = 0; k < n; k++) {
    double *t = malloc(2 * sizeof(double));
    t[0] = w[0] * k;
    t[1] = w[1];
    if (t[0] > 1.0) {
      s += t[1];
// CHECK: replicas.c:[[@LINE+1]]:7: error: replicas: free() of per-replica storage in a loop, under a condition that depends on per-replica values, and the pointer is assigned in a loop or more than once; free it where every replica passes, once per allocation (after the branch)
      free(t);
      continue;
    }
    s += t[0];
    free(t);
  }
  return s;
}

// A buffer allocated in a branch that some replicas take is one block for
// all replicas when its pointer is declared in the branch
// (exec/replicas_masked.c); not when the pointer lives on after it.
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double palloc(const double *w) {
  double base[2] = {1.0, 2.0};
  double *p = base;
  if (w[0] > 0.5) {
// CHECK: replicas.c:[[@LINE+1]]:7: error: replicas: a pointer assigned under a condition that depends on per-replica values; replicas share their pointers, so each would see the choice of the last one: select the values instead (v = c ? b[k] : a[k]), or declare the pointer inside the branch that uses it
    p = malloc(2 * sizeof(double));
    p[0] = w[0];
    p[1] = w[1];
  }
  double s = p[0] * p[1];
  if (w[0] > 0.5)
    free(p);
  return s;
}

// Such a block is one for all replicas: its size may not depend on them.
#pragma mpiad differentiate wrt(w) varying(w) replicas(w[2])
double asz(const double *w) {
  double s = 0.0;
  if (w[0] > 0.5) {
    int k = (int)(4.0 * w[1]) + 1;
// CHECK: replicas.c:[[@LINE+1]]:13: error: replicas: an allocation whose size depends on per-replica values, in a branch that some replicas take; allocate the largest size any replica needs
    double *b = malloc(k * sizeof(double));
    for (int i = 0; i < k; i++)
      b[i] = w[0] * i;
    s = b[k - 1];
    free(b);
  }
  return s;
}
