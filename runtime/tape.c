/*
 * tape.c - the tape's out-of-line paths: chunk allocation and reuse, stack
 * underflow, high-water marks, release and statistics; buffers kept whole.  The push/pop fast
 * paths are static inline functions in mpiad.h.
 */
#define _DEFAULT_SOURCE /* posix_memalign, madvise (before any header) */
#include "mpiad.h"

#include <stdlib.h>
#include <sys/mman.h>

/* One chunk of a stack: a header followed by MPIAD_TAPE_CHUNK_BYTES of data.
 * Chunks of a stack form a doubly linked list; chunks above the current one
 * are empty and kept for reuse. */
struct mpiad_impl_chunk {
  struct mpiad_impl_chunk *prev;
  struct mpiad_impl_chunk *next;
};

static unsigned char *chunk_data(struct mpiad_impl_chunk *c) {
  return (unsigned char *)(c + 1);
}

/* Unused stacks point here so that end - top and top - base are defined. */
static unsigned char empty_byte[1];

#define EMPTY_STACK                                                            \
  {                                                                            \
    empty_byte, empty_byte, empty_byte, empty_byte, empty_byte, NULL, 0, 0, 0, \
        0                                                                      \
  }

/* Starts in popping mode with every stack empty. */
mpiad_impl_tape mpiad_impl_tape_g = {
    {EMPTY_STACK, EMPTY_STACK, EMPTY_STACK, EMPTY_STACK}, 0, 0};

static const char *const stack_name[MPIAD_IMPL_NSTACKS] = {"f64", "f32", "i64",
                                                           "ptr"};
static const size_t elem_size[MPIAD_IMPL_NSTACKS] = {
    sizeof(double), sizeof(float), sizeof(long long), sizeof(void *)};

/* Chunks currently allocated per stack (for the statistics). */
static size_t chunks_allocated[MPIAD_IMPL_NSTACKS];

/* Prints "mpiad: <what> (<name> stack)" and ends the whole job. */
static void fatal_named(const char *what, const char *name) {
  int initialized = 0, finalized = 0;
  fprintf(stderr, "mpiad: %s (%s stack)\n", what, name);
  fflush(stderr);
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

static void fatal(const char *what, int which) {
  fatal_named(what, stack_name[which]);
}

/* Buffers kept whole (mpiad_push_buffer): a stack of the kept buffers and a
 * pool of spare ones, which the pushes hand out in place of those kept. */
typedef struct kept_buffer {
  void *p;
  size_t bytes;
} kept_buffer;

typedef struct buffer_list {
  kept_buffer *at;
  size_t n, cap;
} buffer_list;

static buffer_list kept, spare;
static size_t kept_bytes, kept_peak;
static unsigned long long kept_pushes;

static void append_buffer(buffer_list *l, void *p, size_t bytes) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    kept_buffer *at = realloc(l->at, cap * sizeof *at);
    if (!at)
      fatal_named("out of memory keeping a buffer", "buf");
    l->at = at;
    l->cap = cap;
  }
  l->at[l->n].p = p;
  l->at[l->n].bytes = bytes;
  l->n++;
}

static size_t stack_bytes(const mpiad_impl_stack *s) {
  return s->below + (size_t)(s->top - s->base);
}

/* Sets a stack's fast-path limits for the current mode. */
static void set_limits(mpiad_impl_stack *s) {
  if (mpiad_impl_tape_g.pushing)
    s->push_hi = s->pop_lo = s->end;
  else
    s->push_hi = s->pop_lo = s->base;
}

/* Brings push counts and high-water marks up to date.  Only needed while
 * pushing: sizes do not grow while popping. */
static void account(void) {
  if (!mpiad_impl_tape_g.pushing)
    return;
  size_t total = 0;
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i) {
    mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[i];
    size_t b = stack_bytes(s);
    s->pushes += (b - s->run_start) / elem_size[i];
    s->run_start = b;
    if (b > s->peak)
      s->peak = b;
    total += b;
  }
  total += kept_bytes;
  if (total > mpiad_impl_tape_g.peak)
    mpiad_impl_tape_g.peak = total;
}

static void set_mode(int pushing) {
  if (mpiad_impl_tape_g.pushing == pushing)
    return;
  account();
  mpiad_impl_tape_g.pushing = pushing;
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i) {
    mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[i];
    s->run_start = stack_bytes(s);
    set_limits(s);
  }
}

static void enter_chunk(mpiad_impl_stack *s, struct mpiad_impl_chunk *c) {
  s->chunk = c;
  s->base = chunk_data(c);
  s->end = s->base + MPIAD_TAPE_CHUNK_BYTES;
  set_limits(s);
}

/* Chunks are cut from 2 MiB slabs, aligned and advised as huge pages: a
 * fresh tape of 100 MB then costs some fifty page faults instead of some
 * twenty-five thousand, which made the first adjoint call of a program
 * several times slower than the later ones (each later call reuses the
 * chunks).  Slabs are freed only by mpiad_tape_release. */
#define SLAB_BYTES ((size_t)2 << 20)
#define PIECE_BYTES                                                            \
  ((sizeof(struct mpiad_impl_chunk) + MPIAD_TAPE_CHUNK_BYTES + 63) &           \
   ~(size_t)63)
struct slab {
  struct slab *next;
};
static struct slab *slabs;
static unsigned char *slab_next, *slab_end;

static struct mpiad_impl_chunk *chunk_alloc(void) {
  if (!slab_next || (size_t)(slab_end - slab_next) < PIECE_BYTES) {
    void *p = NULL;
    if (posix_memalign(&p, SLAB_BYTES, SLAB_BYTES) != 0)
      return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    struct slab *sl = p;
    sl->next = slabs;
    slabs = sl;
    slab_next = (unsigned char *)p + 64;
    slab_end = (unsigned char *)p + SLAB_BYTES;
  }
  struct mpiad_impl_chunk *c = (struct mpiad_impl_chunk *)slab_next;
  slab_next += PIECE_BYTES;
  return c;
}

/* Moves a stack whose current chunk is full (or which has no chunk yet) to
 * the next chunk, allocating it if it was never used. */
static void next_chunk(int which) {
  mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[which];
  struct mpiad_impl_chunk *c = s->chunk ? s->chunk->next : NULL;
  if (!c) {
    c = chunk_alloc();
    if (!c)
      fatal("out of memory growing the tape", which);
    c->prev = s->chunk;
    c->next = NULL;
    if (s->chunk)
      s->chunk->next = c;
    chunks_allocated[which]++;
  }
  if (s->chunk)
    s->below += MPIAD_TAPE_CHUNK_BYTES;
  enter_chunk(s, c);
  s->top = s->base;
}

/* Moves a stack whose current chunk is empty back to the previous (full)
 * chunk.  The caller has checked that there is one. */
static void prev_chunk(mpiad_impl_stack *s) {
  enter_chunk(s, s->chunk->prev);
  s->below -= MPIAD_TAPE_CHUNK_BYTES;
  s->top = s->end;
}

void mpiad_impl_push_slow(int which, const void *src, size_t bytes) {
  mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[which];
  const unsigned char *p = src;
  set_mode(1);
  while (bytes > 0) {
    size_t room = (size_t)(s->end - s->top);
    if (room == 0) {
      next_chunk(which);
      room = MPIAD_TAPE_CHUNK_BYTES;
    }
    size_t k = room < bytes ? room : bytes;
    memcpy(s->top, p, k);
    s->top += k;
    p += k;
    bytes -= k;
  }
}

void mpiad_impl_pop_slow(int which, void *dst, size_t bytes) {
  mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[which];
  set_mode(0);
  if (stack_bytes(s) < bytes)
    fatal("tape underflow", which);
  unsigned char *d = (unsigned char *)dst + bytes;
  while (bytes > 0) {
    size_t avail = (size_t)(s->top - s->base);
    if (avail == 0) {
      prev_chunk(s);
      avail = MPIAD_TAPE_CHUNK_BYTES;
    }
    size_t k = avail < bytes ? avail : bytes;
    s->top -= k;
    d -= k;
    memcpy(d, s->top, k);
    bytes -= k;
  }
}

/* The record stack of messages (requests.c) is part of the tape. */
size_t mpiad_impl_record_bytes(void);

void *mpiad_push_buffer(void *a, size_t bytes) {
  set_mode(1);
  append_buffer(&kept, a, bytes);
  kept_bytes += bytes;
  kept_pushes++;
  if (kept_bytes > kept_peak)
    kept_peak = kept_bytes;
  /* The most recently spared buffer of this size, still warm in the cache. */
  for (size_t i = spare.n; i-- > 0;)
    if (spare.at[i].bytes == bytes) {
      void *p = spare.at[i].p;
      spare.at[i] = spare.at[--spare.n];
      return p;
    }
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    fatal_named("out of memory keeping a buffer", "buf");
  return p;
}

void *mpiad_pop_buffer(void *cur, size_t bytes) {
  set_mode(0);
  if (kept.n == 0)
    fatal_named("tape underflow", "buf");
  kept_buffer k = kept.at[--kept.n];
  if (k.bytes != bytes)
    fatal_named("buffer popped with another size than it was pushed with",
                "buf");
  kept_bytes -= bytes;
  append_buffer(&spare, cur, bytes);
  return k.p;
}

size_t mpiad_tape_bytes(void) {
  size_t total = mpiad_impl_record_bytes() + kept_bytes;
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i)
    total += stack_bytes(&mpiad_impl_tape_g.stack[i]);
  return total;
}

size_t mpiad_tape_peak_bytes(void) {
  account();
  return mpiad_impl_tape_g.peak;
}

void mpiad_tape_reset_peak(void) {
  account(); /* keeps the push counts */
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i) {
    mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[i];
    s->peak = stack_bytes(s);
  }
  kept_peak = kept_bytes;
  mpiad_impl_tape_g.peak = mpiad_tape_bytes();
}

void mpiad_tape_release(void) {
  account();
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i) {
    mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[i];
    if (stack_bytes(s) != 0)
      fatal("mpiad_tape_release on a non-empty tape", i);
    /* Empty means the current chunk is the first one; the chunks go with
     * their slabs, below. */
    s->top = s->push_hi = s->pop_lo = s->base = s->end = empty_byte;
    s->chunk = NULL;
    s->below = 0;
    chunks_allocated[i] = 0;
  }
  while (slabs) {
    struct slab *next = slabs->next;
    free(slabs);
    slabs = next;
  }
  slab_next = slab_end = NULL;
  if (kept.n != 0)
    fatal_named("mpiad_tape_release on a non-empty tape", "buf");
  for (size_t i = 0; i < spare.n; ++i)
    free(spare.at[i].p);
  free(spare.at);
  free(kept.at);
  spare = kept = (buffer_list){NULL, 0, 0};
}

void mpiad_tape_print_stats(FILE *f) {
  size_t total_chunks = 0;
  unsigned long long total_pushes = 0;
  account();
  fprintf(f, "mpiad tape: %-5s %20s %14s %14s %8s\n", "stack", "pushes",
          "bytes", "peak_bytes", "chunks");
  for (int i = 0; i < MPIAD_IMPL_NSTACKS; ++i) {
    const mpiad_impl_stack *s = &mpiad_impl_tape_g.stack[i];
    fprintf(f, "mpiad tape: %-5s %20llu %14zu %14zu %8zu\n", stack_name[i],
            s->pushes, stack_bytes(s), s->peak, chunks_allocated[i]);
    total_chunks += chunks_allocated[i];
    total_pushes += s->pushes;
  }
  fprintf(f, "mpiad tape: %-5s %20llu %14zu %14zu %8zu\n", "buf", kept_pushes,
          kept_bytes, kept_peak, spare.n);
  fprintf(f, "mpiad tape: %-5s %20llu %14zu %14zu %8zu\n", "total",
          total_pushes, mpiad_tape_bytes(), mpiad_impl_tape_g.peak,
          total_chunks);
}
