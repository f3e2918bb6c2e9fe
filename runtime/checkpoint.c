/*
 * checkpoint.c - binomial checkpointing of time-step loops (Griewank's
 * revolve schedule), driven by code that mpiad-cc generates for a loop
 * marked `#pragma mpiad checkpoint`.
 *
 * The schedule.  Reversing steps [a, b) of a loop, with the state at step a
 * held in a snapshot, s snapshots in all (the one at a included) and at most
 * t recomputations of any step, is possible exactly when b - a <= beta(s, t)
 * = C(s + t, s).  For longer ranges the reversal splits at m = a + L:
 *
 *     advance a -> m; snapshot m; reverse [m, b) with s - 1 snapshots and t
 *     recomputations; drop snapshot m; reverse [a, m) with s snapshots and
 *     t - 1 recomputations (its steps have just been advanced once).
 *
 * Both halves fit when b - a - beta(s - 1, t) <= L <= beta(s, t - 1), since
 * beta(s, t) = beta(s - 1, t) + beta(s, t - 1).  Taking L = b - a -
 * beta(s - 1, t - 1), clamped into that range, gives the minimal number of
 * advanced steps, t n - beta(s + 1, t - 1) (checked against that formula by
 * runtime/tests/checkpoint.c).  With one snapshot left, step j is reached by
 * advancing from a each time.  A range of one step is turned: run recorded,
 * then reversed.
 *
 * The recursion runs on an explicit stack of frames (depth at most s + t),
 * one action per mpiad_ckpt_next() call, so memory is O(snapshots), not
 * O(steps).
 */
#include "mpiad.h"

#include <limits.h>
#include <stdlib.h>

typedef struct {
  long a, b; /* the range [a, b) */
  int s, t;  /* snapshots (the one at a included), recomputations */
  int phase;
  long m; /* split point (phase 1..3), or the next step to turn (10..12) */
} frame;

typedef struct {
  unsigned char *data;
  size_t size, cap;
} slot;

struct mpiad_ckpt {
  long n;
  int snaps;    /* snapshots this loop may use */
  int capsnaps; /* slots allocated */
  long cur; /* the step the program state is at; -1 when unknown */
  /* the current action's operands */
  long from, to, step;
  int turned;          /* a first turn has been handed out */
  int pending_reverse; /* the first turn's reversal is due */
  /* snapshots: a stack, slots[k] holds the state at pos[k] */
  slot *slots;
  long *pos;
  int nslots;
  size_t read_off; /* mpiad_ckpt_load position in the top slot */
  /* the recursion */
  frame *frames;
  int nframes, maxframes;
  struct mpiad_ckpt *next_free;
};

static mpiad_ckpt *free_list;
static mpiad_ckpt_stats stats;
static size_t live_bytes;

static void fail(const char *what) {
  fprintf(stderr, "mpiad: checkpointing: %s\n", what);
  abort();
}

/* C(s + t, s), saturated at LONG_MAX / 2. */
static long beta(int s, int t) {
  if (s < 0 || t < 0)
    return 0;
  long r = 1;
  for (int i = 1; i <= t; ++i) {
    /* r = C(s + i - 1, i - 1) -> C(s + i, i) = r (s + i) / i, exactly */
    if (r > (LONG_MAX / 2) / (s + i))
      return LONG_MAX / 2;
    r = r * (s + i) / i;
  }
  return r;
}

static void push_frame(mpiad_ckpt *ck, long a, long b, int s, int t) {
  if (ck->nframes == ck->maxframes)
    fail("internal: schedule stack overflow");
  frame *f = &ck->frames[ck->nframes++];
  f->a = a;
  f->b = b;
  f->s = s;
  f->t = t;
  f->phase = 0;
  f->m = 0;
}

mpiad_ckpt *mpiad_ckpt_begin(long nsteps, int snapshots) {
  if (snapshots < 1)
    snapshots = 1;
  long n = nsteps > 0 ? nsteps : 0;
  int t = 0;
  while (beta(snapshots, t) < n)
    ++t;
  mpiad_ckpt *ck = free_list;
  if (ck && ck->capsnaps >= snapshots && ck->maxframes >= snapshots + t + 2) {
    free_list = ck->next_free;
  } else {
    ck = calloc(1, sizeof *ck);
    if (!ck)
      fail("out of memory");
    ck->maxframes = snapshots + t + 2;
    ck->slots = calloc((size_t)snapshots, sizeof *ck->slots);
    ck->pos = calloc((size_t)snapshots, sizeof *ck->pos);
    ck->frames = calloc((size_t)ck->maxframes, sizeof *ck->frames);
    if (!ck->slots || !ck->pos || !ck->frames)
      fail("out of memory");
    ck->capsnaps = snapshots;
  }
  ck->n = n;
  ck->cur = 0;
  ck->turned = ck->pending_reverse = 0;
  ck->nslots = 0;
  ck->nframes = 0;
  ck->next_free = NULL;
  ck->from = ck->to = ck->step = 0;
  if (n > 0)
    push_frame(ck, 0, n, snapshots, t);
  ck->snaps = snapshots;
  stats.loops++;
  stats.steps += n;
  return ck;
}

static int take(mpiad_ckpt *ck, long at) {
  if (ck->nslots == ck->snaps)
    fail("internal: more snapshots than allowed");
  slot *sl = &ck->slots[ck->nslots];
  ck->pos[ck->nslots++] = at;
  sl->size = 0;
  stats.snapshots_taken++;
  return MPIAD_CKPT_SAVE;
}

static void drop(mpiad_ckpt *ck) {
  if (ck->nslots == 0)
    fail("internal: no snapshot to drop");
  slot *sl = &ck->slots[--ck->nslots];
  live_bytes -= sl->size;
  sl->size = 0;
}

/* RESTORE of the state at step a (the top snapshot) when the program is not
 * already there; 0 when nothing is to be done. */
static int restore_to(mpiad_ckpt *ck, long a) {
  if (ck->cur == a)
    return 0;
  if (ck->nslots == 0 || ck->pos[ck->nslots - 1] != a)
    fail("internal: no snapshot of the step to restore");
  ck->read_off = 0;
  ck->cur = a;
  stats.restores++;
  return MPIAD_CKPT_RESTORE;
}

static int advance(mpiad_ckpt *ck, long from, long to) {
  ck->from = from;
  ck->to = to;
  ck->cur = to;
  stats.advanced += to - from;
  return MPIAD_CKPT_ADVANCE;
}

static int turn(mpiad_ckpt *ck, long j) {
  ck->step = j;
  ck->cur = -1; /* recorded and reversed: the state is not kept */
  stats.turns++;
  if (!ck->turned) {
    ck->turned = 1;
    ck->pending_reverse = 1;
    return MPIAD_CKPT_FIRST_TURN;
  }
  return MPIAD_CKPT_TURN;
}

int mpiad_ckpt_next(mpiad_ckpt *ck) {
  if (ck->pending_reverse) {
    ck->pending_reverse = 0;
    return MPIAD_CKPT_REVERSE;
  }
  /* The state at step 0 is needed again whenever there are two steps. */
  if (ck->nslots == 0 && ck->nframes == 1 && ck->frames[0].phase == 0 &&
      ck->frames[0].b - ck->frames[0].a > 1 && ck->cur == 0)
    return take(ck, 0);
  for (;;) {
    if (ck->nframes == 0)
      return MPIAD_CKPT_DONE;
    frame *f = &ck->frames[ck->nframes - 1];
    long n = f->b - f->a;
    int act;
    switch (f->phase) {
    case 0:
      if (n == 1) {
        if ((act = restore_to(ck, f->a)))
          return act;
        --ck->nframes;
        return turn(ck, f->a);
      }
      if (f->s == 1) {
        f->m = f->b - 1;
        f->phase = 10;
        continue;
      }
      {
        long lo = n - beta(f->s - 1, f->t), hi = beta(f->s, f->t - 1);
        long L = n - beta(f->s - 1, f->t - 1);
        if (lo < 1)
          lo = 1;
        if (hi > n - 1)
          hi = n - 1;
        if (lo > hi)
          fail("internal: range too long for its snapshots");
        L = L < lo ? lo : L > hi ? hi : L;
        f->m = f->a + L;
      }
      f->phase = 1;
      continue;
    case 1: /* advance a -> m */
      if ((act = restore_to(ck, f->a)))
        return act;
      f->phase = 2;
      return advance(ck, f->a, f->m);
    case 2: /* snapshot m, then reverse [m, b) */
      f->phase = 3;
      act = take(ck, f->m);
      push_frame(ck, f->m, f->b, f->s - 1, f->t);
      return act;
    case 3: /* [m, b) is done: reverse [a, m) */
      drop(ck);
      f->b = f->m;
      f->t -= 1;
      f->phase = 0;
      continue;
    case 10: /* one snapshot: turn b-1, b-2, ..., a, advancing from a */
      if (f->m < f->a) {
        --ck->nframes;
        continue;
      }
      if ((act = restore_to(ck, f->a)))
        return act;
      f->phase = 11;
      if (f->m > f->a)
        return advance(ck, f->a, f->m);
      continue;
    case 11:
      f->phase = 10;
      return turn(ck, f->m--);
    default:
      fail("internal: bad schedule state");
    }
  }
}

long mpiad_ckpt_from(const mpiad_ckpt *ck) { return ck->from; }
long mpiad_ckpt_to(const mpiad_ckpt *ck) { return ck->to; }
long mpiad_ckpt_step(const mpiad_ckpt *ck) { return ck->step; }

void mpiad_ckpt_save(mpiad_ckpt *ck, const void *p, size_t bytes) {
  if (ck->nslots == 0)
    fail("internal: save without a snapshot");
  slot *sl = &ck->slots[ck->nslots - 1];
  if (sl->size + bytes > sl->cap) {
    size_t cap = sl->cap ? sl->cap : 256;
    while (cap < sl->size + bytes)
      cap *= 2;
    unsigned char *d = realloc(sl->data, cap);
    if (!d)
      fail("out of memory for a snapshot");
    sl->data = d;
    sl->cap = cap;
  }
  if (bytes)
    memcpy(sl->data + sl->size, p, bytes);
  sl->size += bytes;
  live_bytes += bytes;
  if (live_bytes > stats.peak_bytes)
    stats.peak_bytes = live_bytes;
}

void mpiad_ckpt_load(mpiad_ckpt *ck, void *p, size_t bytes) {
  if (ck->nslots == 0)
    fail("internal: load without a snapshot");
  slot *sl = &ck->slots[ck->nslots - 1];
  if (ck->read_off + bytes > sl->size)
    fail("internal: a restore reads more than was saved");
  if (bytes)
    memcpy(p, sl->data + ck->read_off, bytes);
  ck->read_off += bytes;
}

void mpiad_ckpt_end(mpiad_ckpt *ck) {
  if (!ck)
    return;
  if (ck->nframes != 0)
    fail("internal: loop reversal ended early");
  while (ck->nslots > 0)
    drop(ck);
  ck->next_free = free_list;
  free_list = ck;
}

void mpiad_ckpt_release(void) {
  while (free_list) {
    mpiad_ckpt *ck = free_list;
    free_list = ck->next_free;
    for (int k = 0; k < ck->capsnaps; ++k)
      free(ck->slots[k].data);
    free(ck->slots);
    free(ck->pos);
    free(ck->frames);
    free(ck);
  }
}

mpiad_ckpt_stats mpiad_ckpt_get_stats(void) { return stats; }

void mpiad_ckpt_reset_stats(void) {
  mpiad_ckpt_stats z = {0};
  stats = z;
  stats.peak_bytes = live_bytes;
}

long mpiad_ckpt_min_advances(long nsteps, int snapshots) {
  if (snapshots < 1)
    snapshots = 1;
  if (nsteps <= 1)
    return 0;
  int t = 0;
  while (beta(snapshots, t) < nsteps)
    ++t;
  return t * nsteps - beta(snapshots + 1, t - 1);
}
