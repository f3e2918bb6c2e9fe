// What a receive or a completion writes besides its buffer, read in the loop
// that calls it: the status (MPI_SOURCE, MPI_TAG), the MPI_Get_count result,
// MPI_Waitany's index and status, MPI_Waitsome's outcount, indices and
// statuses, and MPI_Test's flag (read once, and in a polling loop).  Each iteration overwrites them, so the
// reverse of iteration k must see iteration k's values, not the last ones
// (issue 13: every reversed iteration read the last status, and the gradient
// changed with the arrival order).  Rank 0 receives one value from each other
// rank s in arrival order; the weights depend on s, so a mixed-up status gives
// another rank's weight.  Expected adjoints are closed-form derivatives.
// Each case runs 20 times per rank count (arrival orders differ between runs).
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "harness.h"

#define PMAX 8
#define REPEAT 20

/* total = x0 on rank 0 + sum over s > 0 of x_s^2 * (s + 1), the weight taken
 * from the status of a wildcard receive. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_source(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 5, comm);
  } else {
    double part;
    MPI_Status st;
    total = x[0];
    for (int k = 1; k < size; k++) {
      MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      total += part * (st.MPI_SOURCE + 1);
    }
  }
  return total;
}

/* The weight is the tag, 3 s + 1, read from the status. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_tag(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 3 * r + 1, comm);
  } else {
    double part;
    MPI_Status st;
    total = x[0];
    for (int k = 1; k < size; k++) {
      MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      total += part * st.MPI_TAG;
    }
  }
  return total;
}

/* Rank s sends 1 + s % 2 values (x0^2, x0^2); the weight is the count from
 * MPI_Get_count. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_count(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part[2];
    part[0] = x[0] * x[0];
    part[1] = x[0] * x[0];
    MPI_Send(part, 1 + r % 2, MPI_DOUBLE, 0, 5, comm);
  } else {
    double part[2];
    int cnt;
    MPI_Status st;
    total = x[0];
    for (int k = 1; k < size; k++) {
      MPI_Recv(part, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &st);
      MPI_Get_count(&st, MPI_DOUBLE, &cnt);
      total += part[0] * cnt;
    }
  }
  return total;
}

/* Receives posted in rank order, completed by MPI_Waitany: the index weights
 * the value (index s - 1 for rank s: weight s + 3), and the status's source
 * adds s + 1: weight 2 s + 4. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_waitany(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 5, comm);
  } else {
    double g[PMAX];
    MPI_Request rq[PMAX];
    MPI_Status st;
    int idx;
    total = x[0];
    for (int q = 1; q < size; q++)
      MPI_Irecv(&g[q - 1], 1, MPI_DOUBLE, q, 5, comm, &rq[q - 1]);
    for (int k = 1; k < size; k++) {
      MPI_Waitany(size - 1, rq, &idx, &st);
      total += g[idx] * (idx + 4) + g[idx] * (st.MPI_SOURCE + 1);
    }
  }
  return total;
}

/* MPI_Waitsome: outcount, indices and statuses.  Slot q - 1 takes tag q from
 * any source, and rank s sends tag s: weight (s + 1) * (s + 1). */
#pragma mpiad differentiate wrt(x) varying(x)
double by_waitsome(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, r, comm);
  } else {
    double g[PMAX];
    MPI_Request rq[PMAX];
    MPI_Status sts[PMAX];
    int ind[PMAX];
    int outc;
    int left = size - 1;
    total = x[0];
    for (int q = 1; q < size; q++)
      MPI_Irecv(&g[q - 1], 1, MPI_DOUBLE, MPI_ANY_SOURCE, q, comm, &rq[q - 1]);
    while (left > 0) {
      MPI_Waitsome(size - 1, rq, &outc, ind, sts);
      for (int j = 0; j < outc; j++)
        total += g[ind[j]] * (sts[j].MPI_SOURCE + 1) * (ind[j] + 2);
      left -= outc;
    }
  }
  return total;
}

/* MPI_Waitsome on one request per call, so that every iteration overwrites
 * sts[0] and ind[0] (above, one call may complete everything): weight
 * (s + 1) * 2. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_waitsome_one(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, r, comm);
  } else {
    double g[PMAX];
    MPI_Request rq[PMAX];
    MPI_Status sts[PMAX];
    int ind[PMAX];
    int outc;
    total = x[0];
    for (int q = 1; q < size; q++)
      MPI_Irecv(&g[q - 1], 1, MPI_DOUBLE, MPI_ANY_SOURCE, q, comm, &rq[q - 1]);
    for (int q = 1; q < size; q++) {
      MPI_Waitsome(1, &rq[q - 1], &outc, ind, sts);
      for (int j = 0; j < outc; j++)
        total += g[q - 1 + ind[j]] * (sts[j].MPI_SOURCE + 1) * (ind[j] + 2);
    }
  }
  return total;
}

/* MPI_Test's flag read: a receive tested once, waited for when the test
 * failed; the value counts flag + 1 times.  The flag depends on timing, so
 * the function reports it in seen[s] (the expected adjoint uses it). */
#pragma mpiad differentiate wrt(x) varying(x)
double by_test_flag(const double *x, int *seen, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 5, comm);
  } else {
    double v;
    MPI_Request rq;
    int flag;
    total = x[0];
    for (int s = 1; s < size; s++) {
      MPI_Irecv(&v, 1, MPI_DOUBLE, s, 5, comm, &rq);
      MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
      if (!flag)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      seen[s] = flag;
      total += v * (flag + 1);
    }
  }
  return total;
}

/* A polling loop: MPI_Test until the flag is set (the trip count depends on
 * timing), then the status's source weights the value: weight s + 1. */
#pragma mpiad differentiate wrt(x) varying(x)
double by_polling(const double *x, MPI_Comm comm) {
  int r, size;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  double total = 0.0;
  if (r > 0) {
    double part = x[0] * x[0];
    MPI_Send(&part, 1, MPI_DOUBLE, 0, 5, comm);
  } else {
    double v;
    MPI_Request rq;
    MPI_Status st;
    int flag;
    total = x[0];
    for (int k = 1; k < size; k++) {
      MPI_Irecv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 5, comm, &rq);
      flag = 0;
      while (!flag)
        MPI_Test(&rq, &flag, &st);
      total += v * (st.MPI_SOURCE + 1);
    }
  }
  return total;
}

/* The generated adjoints (spliced in after the primals). */
double by_source_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_tag_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_count_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_waitany_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_waitsome_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_test_flag_b(const double *x, double *x_b, int *seen, MPI_Comm comm,
                      double seed);
double by_polling_b(const double *x, double *x_b, MPI_Comm comm, double seed);
double by_waitsome_one_b(const double *x, double *x_b, MPI_Comm comm,
                         double seed);

typedef double (*adjoint_fn)(const double *x, double *x_b, MPI_Comm comm,
                             double seed);

/* Weight of rank s's x0^2 in each case (rank 0 contributes x0 itself). */
static double weight(int which, int s, const int *seen) {
  switch (which) {
  case 0: return s + 1;
  case 1: return 3 * s + 1;
  case 2: return 1 + s % 2;
  case 3: return 2 * s + 4;
  case 4: return (double)(s + 1) * (s + 1);
  case 5: return seen[s] + 1;
  case 6: return s + 1;
  default: return 2.0 * (s + 1);
  }
}

static int seen_g[PMAX];
static double test_flag_adapter(const double *x, double *x_b, MPI_Comm comm,
                                double seed) {
  return by_test_flag_b(x, x_b, seen_g, comm, seed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  int r = hx_rank_g, P = hx_size_g;
  if (P > PMAX) {
    printf("at most %d ranks\n", PMAX);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  static const char *names[] = {"MPI_SOURCE", "MPI_TAG", "MPI_Get_count",
                                "MPI_Waitany", "MPI_Waitsome",
                                "MPI_Test flag", "MPI_Test polling",
                                "MPI_Waitsome one at a time"};
  adjoint_fn fns[] = {by_source_b, by_tag_b, by_count_b,
                      by_waitany_b, by_waitsome_b, test_flag_adapter,
                      by_polling_b, by_waitsome_one_b};
  for (int which = 0; which < 8; which++) {
    double worst = 0.0, got_w = 0.0, want_w = 0.0;
    double tape = 0.0;
    for (int rep = 0; rep < REPEAT; rep++) {
      double x[1] = {0.5 + 0.1 * r + 0.01 * rep}, x_b[1] = {0.0};
      for (int s = 0; s < PMAX; s++)
        seen_g[s] = -1;
      /* wildcard receives: calls must not overlap */
      MPI_Barrier(MPI_COMM_WORLD);
      fns[which](x, x_b, MPI_COMM_WORLD, 1.0);
      MPI_Barrier(MPI_COMM_WORLD);
      tape += (double)mpiad_tape_bytes();
      MPI_Bcast(seen_g, PMAX, MPI_INT, 0, MPI_COMM_WORLD);
      double want = r == 0 ? 1.0 : 2.0 * x[0] * weight(which, r, seen_g);
      double err = fabs(x_b[0] - want) / fabs(want);
      if (!(err <= worst)) {
        worst = err;
        got_w = x_b[0];
        want_w = want;
      }
    }
    char label[128];
    snprintf(label, sizeof label, "%s: adjoint vs closed form, %d runs",
             names[which], REPEAT);
    if (worst == 0.0)
      got_w = want_w = 1.0;
    hx_check_each(label, got_w, want_w, 1e-13, 1e-300);
    snprintf(label, sizeof label, "%s: tape empty", names[which]);
    hx_check_each(label, tape, 0.0, 0.0, 1.0);
  }
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
