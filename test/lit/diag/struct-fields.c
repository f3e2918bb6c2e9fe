// Structs whose float/double fields carry derivatives are followed field by
// field (Frontend's field views).  Every other use of such a struct, where
// derivatives would move where the analyses cannot follow them, is a
// located error that says what to write; so are the clauses that do not
// fit an array of structs.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit -DUSES %s -o %t.out 2>&1 | FileCheck %s --check-prefix=USES --implicit-check-not=error:
// RUN: not test -e %t.out
// RUN: not %mpiad-emit -DCLAUSES %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLAUSES --implicit-check-not=error:
// RUN: not %mpiad-emit -DCKPT %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CKPT --implicit-check-not=error:
// RUN: not %mpiad-emit -DCLAUSES --target=cuda %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: %mpiad-cc -DFINE -c %s -o %t.o
#include <mpi.h>
#include <string.h>

struct vec {
  double x, y;
};
typedef struct {
  struct vec pos;
  double m;
  int id;
} particle;

static double norm2(struct vec v) { return v.x * v.x + v.y * v.y; }
static double first(const double *v) { return v[0]; }

#ifdef USES
// A helper that moves its pointer cannot be given the caller's struct.
static double masses(const particle *q, int n) {
  double s = 0.0;
  for (; n > 0; n--, q++)
    s += q->m;
  return s;
}

#pragma mpiad differentiate wrt(p) varying(p)
double to_callee(const particle *p, int n) {
  // USES-DAG: struct-fields.c:[[@LINE+1]]:17: error: 'p' is a struct whose float/double fields carry derivatives; here it is used as a whole, which mpiad cannot follow: use its fields directly here ('p[i].x' for a field x)
  return masses(p, n) * p[0].m;
}

#pragma mpiad differentiate wrt(p) varying(p)
double field_address(const particle *p, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    // USES-DAG: struct-fields.c:[[@LINE+1]]:16: error: 'p' is a struct whose float/double fields carry derivatives; here the address of its field 'm' is taken, which mpiad cannot follow: use its fields directly here ('p[i].x' for a field x)
    s += first(&p[i].m) * p[i].m;
  return s;
}

#pragma mpiad differentiate wrt(p) varying(p)
double struct_field_whole(const particle *p, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    // USES-DAG: struct-fields.c:[[@LINE+2]]:16: error: 'v' is a struct whose float/double fields carry derivatives; here it is assigned, which mpiad cannot follow: use its fields directly here ('v.x' for a field x)
    // USES-DAG: struct-fields.c:[[@LINE+1]]:25: error: 'p' is a struct whose float/double fields carry derivatives; here its field 'pos' is used as a whole struct, which mpiad cannot follow: use its fields directly here ('p[i].x' for a field x)
    struct vec v = p[i].pos;
    s += v.x * p[i].m;
  }
  return s;
}

// A pointer into the array whose index changes after it is set is not an
// alias mpiad can follow (`const particle *pi = &p[i];` with i fixed is).
#pragma mpiad differentiate wrt(p) varying(p)
double pointer_into(const particle *p, int n) {
  int k = n - 1;
  // USES-DAG: struct-fields.c:[[@LINE+2]]:19: error: 'q' is a struct whose float/double fields carry derivatives; here it is assigned, which mpiad cannot follow: use its fields directly here ('q[i].x' for a field x)
  // USES-DAG: struct-fields.c:[[@LINE+1]]:24: error: 'p' is a struct whose float/double fields carry derivatives; here it is used as a whole, which mpiad cannot follow: use its fields directly here ('p[i].x' for a field x)
  const particle *q = &p[k];
  k = 0;
  return q->m * q->pos.x * p[k].m;
}

// An array of structs with an integer field is no array of doubles.
#pragma mpiad differentiate wrt(p) varying(p)
double gathered(const particle *p, particle *all, int n, MPI_Comm comm) {
  // USES-DAG: struct-fields.c:[[@LINE+2]]:17: error: 'p' is a struct whose float/double fields carry derivatives; here it is a buffer of MPI_Allgather; an array of structs can be a buffer when its fields are all double (or all float), without padding, and the datatype is MPI_DOUBLE (MPI_FLOAT) or a datatype made of it; else send the fields as arrays of double
  // USES-DAG: struct-fields.c:[[@LINE+1]]:39: error: 'all' is a struct whose float/double fields carry derivatives; here it is a buffer of MPI_Allgather; an array
  MPI_Allgather(p, 4 * n, MPI_DOUBLE, all, 4 * n, MPI_DOUBLE, comm);
  return all[0].m * p[0].m;
}

// One struct (not an array of them) as a buffer.
#pragma mpiad differentiate wrt(x) varying(x)
double one_struct(const double *x, MPI_Comm comm) {
  struct vec c, t;
  c.x = x[0] * x[1];
  c.y = x[1];
  // USES-DAG: struct-fields.c:[[@LINE+2]]:17: error: 'c' is a struct whose float/double fields carry derivatives; here it is a buffer of MPI_Allreduce, and a single struct cannot be one: declare an array of one; an array of structs can be a buffer when
  // USES-DAG: struct-fields.c:[[@LINE+1]]:21: error: 't' is a struct whose float/double fields carry derivatives; here it is a buffer of MPI_Allreduce, and a single struct
  MPI_Allreduce(&c, &t, 2, MPI_DOUBLE, MPI_SUM, comm);
  return t.x + t.y;
}

#pragma mpiad differentiate wrt(p) varying(p)
double sent_whole(const particle *p, int n, MPI_Comm comm) {
  particle last;
  // USES-DAG: struct-fields.c:[[@LINE+2]]:18: error: 'p' is a struct whose float/double fields carry derivatives; here it is used as a whole, which mpiad cannot follow: use its fields directly here ('p[i].x' for a field x)
  // USES-DAG: struct-fields.c:[[@LINE+1]]:11: error: 'last' is a struct whose float/double fields carry derivatives; here it is used as a whole, which mpiad cannot follow: use its fields directly here ('last.x' for a field x)
  memcpy(&last, &p[n - 1], sizeof last);
  return last.m * p[0].m;
}
#endif

#ifdef CLAUSES
#pragma mpiad differentiate wrt(p) replicated(p)
// CLAUSES-DAG: struct-fields.c:[[@LINE+1]]:43: error: 'p' is an array of structs whose fields are equal on all ranks (replicated); mpiad does not yet sum such gradients over ranks: pass the fields as arrays of double, or make 'p' varying(p)
double replicated_structs(const particle *p, int n, MPI_Comm comm) {
  double s = 0.0, t;
  for (int i = 0; i < n; i++)
    s += p[i].m * p[i].pos.x;
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t * p[0].m;
}
#endif

#if defined(CKPT) || defined(CLAUSES)
#pragma mpiad differentiate wrt(p) output(p, return) varying(p)
double run(particle *p, int n, int nsteps) {
#ifdef CKPT
#pragma mpiad checkpoint
#endif
  for (int t = 0; t < nsteps; t++)
    for (int i = 0; i < n; i++) {
      // CKPT: struct-fields.c:[[@LINE+2]]:14: error: a checkpointed loop that changes the struct field 'm' of 'p' is not supported yet: keep the changing state in arrays of double, or remove the checkpoint pragma
      // CUDA: struct-fields.c:[[@LINE+1]]:14: error: the struct field 'm' of 'p' carries derivatives, which --target=cuda does not support yet: keep such data in arrays of float or double
      p[i].m -= 0.1 * p[i].pos.x * p[i].m;
      p[i].pos.x += 0.1 * p[i].m;
    }
  return p[0].pos.x * p[0].m;
}
#endif

#ifdef FINE
// Integer fields, and structs whose fields carry nothing, are used freely.
#pragma mpiad differentiate wrt(p) varying(p)
double fine(const particle *p, int n, struct vec scale) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    if (p[i].id % 2 == 0)
      s += p[i].m * p[i].pos.x * norm2(scale);
  return s;
}
#endif
