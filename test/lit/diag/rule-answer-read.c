// A rule's `answer` (an int the call writes that the program must not read)
// read by the program: the error is at the read, with a note at the call.
// The installed rules have no answer any more (MPI_Test's flag is a recorded
// value, exec/mpi_status_in_loop.c); Inputs/answer.rules gives MPI_Testall
// one.
//
// RUN: not %mpiad-emit --rules %S/Inputs/answer.rules %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
#include <mpi.h>

#pragma mpiad differentiate wrt(x) output(y)
void f(const double *x, double *y, MPI_Comm comm) {
  double a = 2.0 * x[0], b = 0.0;
  MPI_Request rq[2];
  int flag = 0;
  MPI_Irecv(&b, 1, MPI_DOUBLE, 0, 0, comm, &rq[0]);
  MPI_Isend(&a, 1, MPI_DOUBLE, 0, 0, comm, &rq[1]);
  // CHECK: {{.*}}rule-answer-read.c:[[@LINE+1]]:11: error: the program reads 'flag', the answer of MPI_Testall: the adjoint replays which requests completed, not control that depends on it; complete the requests with MPI_Wait/MPI_Waitall instead
  while (!flag)
    // CHECK: {{.*}}rule-answer-read.c:[[@LINE+1]]:5: note: 'flag' is written here
    MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
  y[0] = a * b;
}
