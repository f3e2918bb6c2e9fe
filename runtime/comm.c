/*
 * comm.c - adjoint communication helpers: the root factor and batches that
 * fuse several "sum partial adjoints over ranks" into one MPI_Allreduce.
 */
#include "mpiad.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

const char *mpiad_result_string(mpiad_result_t r) {
  switch (r) {
  case MPIAD_SUCCESS:
    return "MPIAD_SUCCESS";
  case MPIAD_ERR_MPI:
    return "MPIAD_ERR_MPI";
  case MPIAD_ERR_NOMEM:
    return "MPIAD_ERR_NOMEM";
  case MPIAD_ERR_ARG:
    return "MPIAD_ERR_ARG";
  }
  return "unknown mpiad result";
}

mpiad_result_t mpiad_ensure(mpiad_result_t r, const char *call,
                            const char *file, int line) {
  if (r == MPIAD_SUCCESS)
    return r;
  fprintf(stderr,
          "%s:%d: mpiad: %s failed: %s (%s); stopping, as a derivative "
          "computed past this point would be wrong (docs/errors.md)\n",
          file, line, call, mpiad_result_string(r),
          r == MPIAD_ERR_ARG     ? "an argument the adjoint cannot use, "
                                   "such as counts that differ between the "
                                   "two sides of a collective"
          : r == MPIAD_ERR_NOMEM ? "out of memory"
                                 : "an MPI call returned an error");
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return r;
}

double mpiad_root_factor(MPI_Comm comm) {
  int rank = -1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return 0.0;
  return rank == 0 ? 1.0 : 0.0;
}

int mpiad_comm_size(MPI_Comm comm) {
  int size = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return 0;
  return size;
}

int mpiad_comm_rank(MPI_Comm comm) {
  int rank = -1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return -1;
  return rank;
}

int mpiad_counts_extent(const int *counts, const int *displs, MPI_Comm comm) {
  int size = mpiad_comm_size(comm), end = 0;
  /* The blocks may come in any order and leave gaps: the call writes up to
   * the end of the last one. */
  for (int q = 0; q < size; q++)
    if (counts[q] > 0 && displs[q] + counts[q] > end)
      end = displs[q] + counts[q];
  return end;
}

int mpiad_count_of_rank(const int *counts, MPI_Comm comm) {
  int rank = mpiad_comm_rank(comm);
  return rank >= 0 ? counts[rank] : 0;
}

/* Batched replicas: the scaled copies of a v collective's count and
 * displacement arrays.  One slot per array of a call (at most four:
 * MPI_Alltoallv), reused by the next call; these collectives are blocking, so
 * a copy is needed only while its call runs. */
#define MPIAD_REPLICA_SLOTS 4
static int *replica_slot[MPIAD_REPLICA_SLOTS];
static int replica_cap[MPIAD_REPLICA_SLOTS];

static void replica_counts_fail(const char *what) {
  fprintf(stderr, "mpiad: batched replicas: %s\n", what);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

const int *mpiad_replica_counts(int slot, const int *a, int R, MPI_Comm comm,
                                int per, int root) {
  if (!a || R == 1)
    return a;
  if (root >= 0 && mpiad_comm_rank(comm) != root)
    return a; /* not read on this rank: may be anything */
  if (slot < 0 || slot >= MPIAD_REPLICA_SLOTS || R < 1)
    replica_counts_fail("bad slot or replica count (internal error)");
  int n = per == MPIAD_PER_SOURCE ? mpiad_neighbor_indegree(comm)
          : per == MPIAD_PER_DESTINATION ? mpiad_neighbor_outdegree(comm)
                                         : mpiad_comm_size(comm);
  if (n > replica_cap[slot]) {
    int *p = realloc(replica_slot[slot], (size_t)n * sizeof *p);
    if (!p)
      replica_counts_fail("out of memory scaling a count array");
    replica_slot[slot] = p;
    replica_cap[slot] = n;
  }
  for (int q = 0; q < n; q++) {
    if (a[q] > INT_MAX / R || a[q] < INT_MIN / R)
      replica_counts_fail("a count or displacement times the number of "
                          "replicas does not fit in an int");
    replica_slot[slot][q] = a[q] * R;
  }
  return replica_slot[slot];
}

int mpiad_replica_any(const int *mask, int R) {
  for (int r = 0; r < R; r++)
    if (mask[r])
      return 1;
  return 0;
}

/* One segment of an open batch. */
typedef struct {
  const void *partial;
  void *dest;
  size_t n;
  int is_f32;
} segment;

/* Process-global segment list, shared by all open (nested) batches: a batch
 * owns the entries [first, first + nseg).  Starts in static storage and moves
 * to the heap only when it outgrows it; never shrinks. */
static segment seg_inline[MPIAD_BATCH_INLINE_SEGMENTS];
static segment *segs = seg_inline;
static size_t seg_cap = MPIAD_BATCH_INLINE_SEGMENTS;
static size_t seg_count;
/* Nesting depth of open batches; only the innermost one accepts segments. */
static int open_level;

/* Process-global pack buffer, used only inside mpiad_batch_allreduce. */
static double pack_inline[MPIAD_BATCH_INLINE_DOUBLES];
static double *pack = pack_inline;
static size_t pack_cap = MPIAD_BATCH_INLINE_DOUBLES;

/* Marks a closed batch: no segment index can equal it. */
#define CLOSED ((size_t)-1)

void mpiad_batch_begin(mpiad_batch *b, MPI_Comm comm) {
  b->comm = comm;
  b->first = seg_count;
  b->nseg = 0;
  b->total = 0;
  b->err = MPIAD_SUCCESS;
  b->level = ++open_level;
}

static int grow_segments(void) {
  size_t cap = 2 * seg_cap;
  segment *s;
  if (segs == seg_inline) {
    s = malloc(cap * sizeof *s);
    if (s)
      memcpy(s, seg_inline, seg_count * sizeof *s);
  } else {
    s = realloc(segs, cap * sizeof *s);
  }
  if (!s)
    return 0;
  segs = s;
  seg_cap = cap;
  return 1;
}

static void add_segment(mpiad_batch *b, const void *partial, void *dest,
                        size_t n, int is_f32) {
  if (b->err != MPIAD_SUCCESS || n == 0)
    return;
  if (!partial || !dest || b->first == CLOSED || b->level != open_level ||
      b->first + b->nseg != seg_count) {
    b->err = MPIAD_ERR_ARG;
    return;
  }
  if (seg_count == seg_cap && !grow_segments()) {
    b->err = MPIAD_ERR_NOMEM;
    return;
  }
  segment *s = &segs[seg_count++];
  s->partial = partial;
  s->dest = dest;
  s->n = n;
  s->is_f32 = is_f32;
  b->nseg++;
  b->total += n;
}

void mpiad_batch_add_f64(mpiad_batch *b, const double *partial, double *dest,
                         size_t n) {
  add_segment(b, partial, dest, n, 0);
}

void mpiad_batch_add_f32(mpiad_batch *b, const float *partial, float *dest,
                         size_t n) {
  add_segment(b, partial, dest, n, 1);
}

static int reserve_pack(size_t n) {
  if (n <= pack_cap)
    return 1;
  size_t cap = 2 * pack_cap > n ? 2 * pack_cap : n;
  double *p = malloc(cap * sizeof *p);
  if (!p)
    return 0;
  if (pack != pack_inline)
    free(pack);
  pack = p;
  pack_cap = cap;
  return 1;
}

static void pack_segments(const segment *sg, size_t nseg) {
  double *p = pack;
  for (size_t i = 0; i < nseg; ++i) {
    if (sg[i].is_f32) {
      const float *src = sg[i].partial;
      for (size_t k = 0; k < sg[i].n; ++k)
        p[k] = src[k];
    } else {
      memcpy(p, sg[i].partial, sg[i].n * sizeof *p);
    }
    p += sg[i].n;
  }
}

static void unpack_segments(const segment *sg, size_t nseg) {
  const double *p = pack;
  for (size_t i = 0; i < nseg; ++i) {
    size_t n = sg[i].n;
    int in_place = sg[i].dest == sg[i].partial;
    if (sg[i].is_f32) {
      float *dst = sg[i].dest;
      for (size_t k = 0; k < n; ++k)
        dst[k] = in_place ? (float)p[k] : (float)((double)dst[k] + p[k]);
    } else {
      double *dst = sg[i].dest;
      if (in_place) {
        memcpy(dst, p, n * sizeof *p);
      } else {
        for (size_t k = 0; k < n; ++k)
          dst[k] += p[k];
      }
    }
    p += n;
  }
}

mpiad_result_t mpiad_batch_allreduce(mpiad_batch *b) {
  mpiad_result_t r = (mpiad_result_t)b->err;
  if (b->first == CLOSED || b->level != open_level ||
      b->first + b->nseg != seg_count)
    r = MPIAD_ERR_ARG;
  if (r == MPIAD_SUCCESS && b->total > 0) {
    const segment *sg = segs + b->first;
    if (!reserve_pack(b->total)) {
      r = MPIAD_ERR_NOMEM;
    } else {
      pack_segments(sg, b->nseg);
      /* One call unless the count does not fit an int. */
      for (size_t done = 0; done < b->total && r == MPIAD_SUCCESS;) {
        size_t left = b->total - done;
        int count = left > (size_t)INT_MAX ? INT_MAX : (int)left;
        if (MPI_Allreduce(MPI_IN_PLACE, pack + done, count, MPI_DOUBLE, MPI_SUM,
                          b->comm) != MPI_SUCCESS)
          r = MPIAD_ERR_MPI;
        done += (size_t)count;
      }
      if (r == MPIAD_SUCCESS)
        unpack_segments(sg, b->nseg);
    }
  }
  /* Close the batch: drop its segments (and those of any inner batch left
   * open by mistake) from the global list. */
  if (b->first != CLOSED && b->first <= seg_count) {
    seg_count = b->first;
    open_level = b->level - 1;
  }
  b->first = CLOSED;
  b->nseg = 0;
  b->total = 0;
  b->err = MPIAD_SUCCESS;
  return r;
}
