/*
 * inputs.c - checks of a generated adjoint's inputs on entry.
 *
 * mpiad_check_enabled / mpiad_check_replicated: with MPIAD_CHECK=1 in the
 * environment, the adjoint verifies, with one MPI_Allreduce, that every input
 * it treats as replicated is bitwise equal on all ranks, and otherwise aborts
 * with a message naming the function, the input, its value (for scalars) and
 * two ranks that disagree.  Without the variable it costs one branch.
 *
 * mpiad_alloc_zeroed: the allocations a generated adjoint sizes from its
 * inputs (the per-rank shares of replicated gradients), with a clear message
 * and MPI_Abort for a negative length or a failed allocation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiad.h"

int mpiad_check_enabled(void) {
  static int enabled = -1;
  if (enabled < 0) {
    const char *v = getenv("MPIAD_CHECK");
    enabled = v && v[0] != '\0' && strcmp(v, "0") != 0;
  }
  return enabled;
}

/* FNV-1a over the bytes, with the length mixed in. */
static uint64_t hash_bytes(const void *p, long long bytes) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char *c = (const unsigned char *)p;
  for (long long i = 0; i < bytes; i++) {
    h ^= c[i];
    h *= 1099511628211ULL;
  }
  h ^= (uint64_t)bytes;
  h *= 1099511628211ULL;
  return h;
}

/* The bytes of one input on this rank, or -1 for an invalid length. */
static long long input_bytes(const mpiad_check_input *in) {
  if (in->count < 0)
    return -1;
  return in->count * (long long)in->elem_size;
}

static void print_value(char *out, size_t n, char kind, const void *p) {
  switch (kind) {
  case 'i':
    snprintf(out, n, "%d", *(const int *)p);
    break;
  case 'l':
    snprintf(out, n, "%lld", *(const long long *)p);
    break;
  case 'f':
    snprintf(out, n, "%.9g", (double)*(const float *)p);
    break;
  case 'd':
    snprintf(out, n, "%.17g", *(const double *)p);
    break;
  default:
    out[0] = '\0';
  }
}

/* Reports the first input that differs and aborts (collective: every rank
 * calls it after the same reduction). */
static void report_mismatch(MPI_Comm comm, const char *fn,
                            const mpiad_check_input *in, uint64_t mine) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* The failure path may communicate more: each rank's hash and value. */
  struct {
    uint64_t hash;
    long long count;
    unsigned char value[8];
  } me, *all = malloc((size_t)size * sizeof me);
  memset(&me, 0, sizeof me);
  me.hash = mine;
  me.count = in->count;
  if (in->kind != 'a' && in->count == 1 && in->elem_size <= sizeof me.value)
    memcpy(me.value, in->data, in->elem_size);
  if (!all) {
    fprintf(stderr, "mpiad: MPIAD_CHECK: %s: replicated input '%s' differs "
                    "between ranks\n", fn, in->name);
    MPI_Abort(comm, 1);
  }
  MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE,
                comm);
  int other = 1;
  while (other < size && all[other].hash == all[0].hash)
    ++other;
  if (other == size)
    other = 1; /* cannot happen: the reduction saw two hashes */
  if (rank == 0) {
    if (in->kind == 'a') {
      fprintf(stderr,
              "mpiad: MPIAD_CHECK: %s: replicated input '%s' differs between "
              "ranks: rank 0 and rank %d hold different values (%lld and %lld "
              "elements); list it in varying(...) if it may differ, or make it "
              "equal on every rank\n",
              fn, in->name, other, all[0].count, all[other].count);
    } else {
      char a[64], b[64];
      print_value(a, sizeof a, in->kind, all[0].value);
      print_value(b, sizeof b, in->kind, all[other].value);
      fprintf(stderr,
              "mpiad: MPIAD_CHECK: %s: replicated input '%s' differs between "
              "ranks: %s on rank 0, %s on rank %d; list it in varying(...) if "
              "it may differ, or make it equal on every rank\n",
              fn, in->name, a, b, other);
    }
    fflush(stderr);
    free(all);
    MPI_Abort(comm, 1);
  }
  free(all);
  /* The other ranks wait for rank 0's abort, so that its message is seen. */
  MPI_Barrier(comm);
  MPI_Abort(comm, 1);
}

void mpiad_check_replicated(MPI_Comm comm, const char *fn,
                            const mpiad_check_input *in, int n) {
  if (n <= 0)
    return;
  /* For each input, this rank's hash and its complement, reduced with MAX:
   * the input is equal everywhere when the largest hash is also the smallest
   * (the complement of the largest complement).  own[] keeps this rank's. */
  uint64_t small[4 * 16];
  uint64_t *red = n <= 16 ? small : malloc(4 * (size_t)n * sizeof *red);
  if (!red) {
    fprintf(stderr, "mpiad: MPIAD_CHECK: %s: out of memory\n", fn);
    MPI_Abort(comm, 1);
  }
  uint64_t *own = red + 2 * n;
  for (int i = 0; i < n; i++) {
    long long bytes = input_bytes(&in[i]);
    if (bytes < 0) {
      fprintf(stderr,
              "mpiad: MPIAD_CHECK: %s: replicated input '%s' has a negative "
              "length (%lld)\n",
              fn, in[i].name, in[i].count);
      MPI_Abort(comm, 1);
    }
    own[2 * i] = red[2 * i] = hash_bytes(in[i].data, bytes);
    own[2 * i + 1] = red[2 * i + 1] = ~red[2 * i];
  }
  MPI_Allreduce(MPI_IN_PLACE, red, 2 * n, MPI_UINT64_T, MPI_MAX, comm);
  int bad = -1;
  for (int i = 0; i < n && bad < 0; i++)
    if (red[2 * i] != ~red[2 * i + 1])
      bad = i;
  uint64_t mine = bad >= 0 ? own[2 * bad] : 0;
  if (red != small)
    free(red);
  if (bad >= 0)
    report_mismatch(comm, fn, &in[bad], mine);
}

void *mpiad_alloc_zeroed(long long count, size_t elem_size, const char *fn,
                         const char *what, MPI_Comm comm) {
  if (count < 0) {
    fprintf(stderr,
            "mpiad: %s: the length of '%s' is negative (%lld); the adjoint "
            "cannot allocate its gradient\n",
            fn, what, count);
    MPI_Abort(comm, 1);
  }
  void *p = calloc(count > 0 ? (size_t)count : 1, elem_size);
  if (!p) {
    fprintf(stderr,
            "mpiad: %s: cannot allocate the gradient of '%s' (%lld elements "
            "of %zu bytes)\n",
            fn, what, count, elem_size);
    MPI_Abort(comm, 1);
  }
  return p;
}

void mpiad_need_shadow(const void *shadow, const char *fn, const char *global,
                       const char *make) {
  if (shadow)
    return;
  fprintf(stderr,
          "mpiad: %s: the shadow %s_b of the global pointer '%s' is NULL: "
          "call %s() first (it allocates, zeroed, the shadows of the global "
          "pointers %s uses), or allocate %s_b yourself, zeroed, with the "
          "length of %s\n",
          fn, global, global, make, fn, global, global);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void mpiad_need_tangent(const void *tangent, const char *fn, const char *global,
                        const char *make) {
  if (tangent)
    return;
  fprintf(stderr,
          "mpiad: %s: the tangent %s_d of the global pointer '%s' is NULL: "
          "call %s() first (it allocates, zeroed, the tangents of the global "
          "pointers %s uses), or allocate %s_d yourself, with the length of "
          "%s, holding the direction where %s is an input\n",
          fn, global, global, make, fn, global, global, global);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
