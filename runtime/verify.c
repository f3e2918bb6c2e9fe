/*
 * verify.c - the read verifier of `mpiad-cc --verify` (docs/errors.md,
 * "When a gradient looks wrong").
 *
 * Code generated with --verify keeps, before each statement of the forward
 * sweep, the values that the statement's adjoint will read (variables and
 * array elements of the program, whatever the analyses decided to record),
 * on a stack of its own.  The reverse sweep, just before it uses them,
 * compares the values it is about to read with the ones kept, and stops the
 * program at the first difference with the expression, the user's statement
 * and the counters of the loops around it.  A missing record (an overwritten
 * value the reverse sweep reads without restoring it) is found this way from
 * any input, without finite differences.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiad.h"

static double *stack;
static size_t top, cap;
static long checks;

void mpiad_verify_push(double v) {
  if (top == cap) {
    size_t nc = cap ? 2 * cap : 4096;
    double *ns = realloc(stack, nc * sizeof *ns);
    if (!ns) {
      fprintf(stderr, "mpiad verify: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
      return;
    }
    stack = ns;
    cap = nc;
  }
  stack[top++] = v;
}

void mpiad_verify_check(double got, const char *expr, const char *where,
                        const char *counters, const long *values,
                        int nvalues) {
  if (top == 0) {
    fprintf(stderr,
            "%s: mpiad verify: the reverse sweep reads '%s' here, but the "
            "forward sweep kept no value for it (a reverse statement without "
            "its forward statement: report this as a bug of mpiad-cc)\n",
            where, expr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return;
  }
  double want = stack[--top];
  checks++;
  int same = memcmp(&got, &want, sizeof got) == 0 ||
             (isnan(got) && isnan(want)) || got == want;
  if (same)
    return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* One write of the whole line: written in pieces, mpirun's abort banner
   * could land in the middle of it. */
  char msg[2048];
  size_t len = 0;
  int n = snprintf(msg, sizeof msg,
                   "%s: mpiad verify: rank %d: the adjoint of this statement "
                   "reads '%s' = %.17g, but the forward sweep had %.17g there",
                   where, rank, expr, got, want);
  len = n > 0 ? (size_t)n : 0;
  if (nvalues > 0 && len < sizeof msg) {
    n = snprintf(msg + len, sizeof msg - len, " (iteration %s =", counters);
    len += n > 0 ? (size_t)n : 0;
    for (int i = 0; i < nvalues && len < sizeof msg; i++) {
      n = snprintf(msg + len, sizeof msg - len, "%s %ld", i ? "," : "",
                   values[i]);
      len += n > 0 ? (size_t)n : 0;
    }
    if (len < sizeof msg) {
      n = snprintf(msg + len, sizeof msg - len, ")");
      len += n > 0 ? (size_t)n : 0;
    }
  }
  if (len < sizeof msg)
    snprintf(msg + len, sizeof msg - len,
             ": a value the reverse sweep needs was overwritten and not "
             "restored, so the gradient would be wrong; please report this "
             "program as a bug of mpiad-cc\n");
  fputs(msg, stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

size_t mpiad_verify_pending(void) { return top; }

long mpiad_verify_checks(void) { return checks; }
