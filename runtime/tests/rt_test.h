/*
 * rt_test.h - a few helpers shared by the runtime's unit tests: a CHECK that
 * reports the rank, the line and the numbers, and a collective exit status.
 */
#ifndef MPIAD_RT_TEST_H
#define MPIAD_RT_TEST_H

#include <mpi.h>
#include <stdio.h>

static int rt_rank, rt_size, rt_failures;

/* Records a failure (without stopping) when cond is false; the remaining
 * arguments are a printf format and values describing what was seen. */
#define RT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", rt_rank,          \
              __FILE__, __LINE__, #cond);                                      \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      rt_failures++;                                                           \
    }                                                                          \
  } while (0)

static void rt_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &rt_size);
}

/* Finalizes MPI; returns non-zero on every rank if any rank had a failure. */
static int rt_finish(const char *name) {
  int any = 0;
  MPI_Allreduce(&rt_failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rt_rank == 0)
    printf("%s: %d ranks, %d failed checks: %s\n", name, rt_size, any,
           any ? "FAIL" : "PASS");
  MPI_Finalize();
  return any != 0;
}

#endif /* MPIAD_RT_TEST_H */
