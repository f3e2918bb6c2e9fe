/*
 * checkpoint.c - unit test of the binomial checkpointing schedule
 * (runtime/checkpoint.c).
 *
 * A model loop whose state is the step number (plus a value that each step
 * changes) follows the actions of mpiad_ckpt_next for every nsteps in 0..300
 * and snapshots in 1..8, and for a few long loops.  Checked:
 *   - ADVANCE starts where the state is; RESTORE brings back exactly what the
 *     matching SAVE saved; a turn of step j finds the state at step j;
 *   - the turns cover nsteps-1, ..., 0 once each, in that order, the first
 *     one a FIRST_TURN followed by its REVERSE;
 *   - at most `snapshots` snapshots are held at once (snapshot bytes);
 *   - no step runs more than t + 1 times, t the least with C(K+t, K) >= n;
 *   - the number of advanced steps equals the minimum t n - C(K+t, t-1)
 *     (Griewank and Walther), computed here independently.
 */
#include "mpiad.h"
#include "rt_test.h"

#include <stdlib.h>

/* C(n, k) in floating point: exact for the sizes used here. */
static double choose(int n, int k) {
  if (k < 0 || k > n)
    return 0;
  double r = 1;
  for (int i = 1; i <= k; ++i)
    r = r * (n - k + i) / i;
  return r;
}

typedef struct {
  long step;    /* the step the state is at (-1: unknown) */
  double value; /* a value each step changes: value(j) = j * 0.5 + 1 */
} model;

/* Snapshot bytes held by an enclosing schedule during run_case. */
static size_t held_outside;

static void run_case(long n, int K, int *runs) {
  mpiad_ckpt_reset_stats();
  for (long j = 0; j < n; ++j)
    runs[j] = 0;
  int t = 0;
  while (choose(K + t, K) < (double)n)
    ++t;
  model st = {0, 1.0};
  mpiad_ckpt *ck = mpiad_ckpt_begin(n, K);
  long next_turn = n - 1, first_turn = -1;
  int saw_reverse = 0, bad = 0;
  for (int a = mpiad_ckpt_next(ck); a != MPIAD_CKPT_DONE && !bad;
       a = mpiad_ckpt_next(ck)) {
    switch (a) {
    case MPIAD_CKPT_ADVANCE: {
      long from = mpiad_ckpt_from(ck), to = mpiad_ckpt_to(ck);
      if (st.step != from || !(from < to) || to > n) {
        RT_CHECK(0, "n=%ld K=%d: advance %ld->%ld at step %ld", n, K, from, to,
                 st.step);
        bad = 1;
        break;
      }
      for (long j = from; j < to; ++j) {
        runs[j]++;
        st.value = (j + 1) * 0.5 + 1.0;
      }
      st.step = to;
      break;
    }
    case MPIAD_CKPT_SAVE:
      mpiad_ckpt_save(ck, &st.step, sizeof st.step);
      mpiad_ckpt_save(ck, &st.value, sizeof st.value);
      break;
    case MPIAD_CKPT_RESTORE:
      mpiad_ckpt_load(ck, &st.step, sizeof st.step);
      mpiad_ckpt_load(ck, &st.value, sizeof st.value);
      if (st.value != st.step * 0.5 + 1.0) {
        RT_CHECK(0, "n=%ld K=%d: restored value %g at step %ld", n, K,
                 st.value, st.step);
        bad = 1;
      }
      break;
    case MPIAD_CKPT_FIRST_TURN:
    case MPIAD_CKPT_TURN: {
      long j = mpiad_ckpt_step(ck);
      int first = a == MPIAD_CKPT_FIRST_TURN;
      if (j != next_turn || st.step != j || first != (first_turn < 0) ||
          st.value != j * 0.5 + 1.0) {
        RT_CHECK(0, "n=%ld K=%d: turn %ld (first %d) at step %ld, expected %ld",
                 n, K, j, first, st.step, next_turn);
        bad = 1;
        break;
      }
      runs[j]++;
      st.step = -1; /* recorded and reversed */
      st.value = -1;
      next_turn--;
      if (first)
        first_turn = j;
      else if (!saw_reverse) {
        RT_CHECK(0, "n=%ld K=%d: no REVERSE after the first turn", n, K);
        bad = 1;
      }
      break;
    }
    case MPIAD_CKPT_REVERSE:
      if (mpiad_ckpt_step(ck) != first_turn || saw_reverse) {
        RT_CHECK(0, "n=%ld K=%d: REVERSE of %ld", n, K, mpiad_ckpt_step(ck));
        bad = 1;
      }
      saw_reverse = 1;
      break;
    default:
      RT_CHECK(0, "n=%ld K=%d: unknown action %d", n, K, a);
      bad = 1;
    }
  }
  mpiad_ckpt_end(ck);
  if (bad)
    return;
  RT_CHECK(next_turn == -1, "n=%ld K=%d: %ld steps never turned", n, K,
           next_turn + 1);
  mpiad_ckpt_stats s = mpiad_ckpt_get_stats();
  size_t per = sizeof(long) + sizeof(double);
  RT_CHECK(s.peak_bytes <= held_outside + (size_t)K * per,
           "n=%ld K=%d: %zu snapshot bytes held, more than K snapshots", n, K,
           s.peak_bytes);
  int maxruns = 0;
  for (long j = 0; j < n; ++j)
    if (runs[j] > maxruns)
      maxruns = runs[j];
  RT_CHECK(n == 0 || maxruns <= t + 1, "n=%ld K=%d: a step ran %d times, t=%d",
           n, K, maxruns, t);
  double minimum = n <= 1 ? 0 : (double)t * n - choose(K + t, t - 1);
  RT_CHECK((double)s.advanced == minimum,
           "n=%ld K=%d: %ld advanced steps, minimum %.0f", n, K, s.advanced,
           minimum);
  RT_CHECK(mpiad_ckpt_min_advances(n, K) == (long)minimum,
           "n=%ld K=%d: mpiad_ckpt_min_advances %ld, expected %.0f", n, K,
           mpiad_ckpt_min_advances(n, K), minimum);
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  int *runs = malloc(100000 * sizeof *runs);
  for (long n = 0; n <= 300; ++n)
    for (int K = 1; K <= 8; ++K)
      run_case(n, K, runs);
  run_case(1000, 3, runs);
  run_case(10000, 20, runs);
  run_case(100000, 20, runs);
  run_case(100000, 40, runs);
  /* Nested loops: two schedules alive at once keep their own snapshots. */
  mpiad_ckpt *outer = mpiad_ckpt_begin(3, 2);
  RT_CHECK(mpiad_ckpt_next(outer) == MPIAD_CKPT_SAVE, "outer: first action");
  long o = 7;
  mpiad_ckpt_save(outer, &o, sizeof o);
  held_outside = sizeof o;
  run_case(50, 4, runs);
  held_outside = 0;
  int a;
  while ((a = mpiad_ckpt_next(outer)) != MPIAD_CKPT_DONE)
    if (a == MPIAD_CKPT_RESTORE) {
      long back = 0;
      mpiad_ckpt_load(outer, &back, sizeof back);
      RT_CHECK(back == 7, "outer snapshot came back as %ld", back);
    } else if (a == MPIAD_CKPT_SAVE) {
      mpiad_ckpt_save(outer, &o, sizeof o);
    }
  mpiad_ckpt_end(outer);
  mpiad_ckpt_release();
  free(runs);
  return rt_finish("checkpoint");
}
