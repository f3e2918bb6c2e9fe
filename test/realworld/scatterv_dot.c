/* Corpus program: MPI_Scatterv of a 2-D array in uneven parts, in the shape
 * of Erlend Hamberg's widely copied MPI_Scatterv example
 * (gist.github.com/ehamberg/1263868, "scatterv.c") in the form course
 * repositories give it for a dot product: two `double x[SIZE][SIZE]`
 * arrays initialised in main, sendcounts and displs computed with
 * `rem = (SIZE*SIZE) % size` and `if (rem > 0) { sendcounts[i]++; rem--; }`,
 * `MPI_Scatterv(&x, sendcounts, displs, MPI_DOUBLE, &rec_buf_x, ...)` (the
 * address of the whole array), the products summed over
 * `sendcounts[rank]` and MPI_Reduce'd to the root. Written for mpiad in
 * that program's shape (its idioms, not its text); everything in main, as
 * in the example.
 * The mpiad edits: braces around the computation and the pragma in front of
 * them; TotalSum is declared before them; the receive count is
 * sendcounts[rank] where the example passes 100, the buffer's capacity
 * (MPI requires the two sides of a collective to match: the adjoint's
 * gather stops with an error naming mpiad_scatterv_rev otherwise).
 * It found three bugs: `&x` of an array of main became, in the block's
 * outlined function, the address of a pointer parameter (a wrong primal,
 * and a shadow written on the stack); the array's length was not known
 * there; and the runtime's refusal of the count of 100 was ignored by the
 * generated code, which returned a zero gradient (every runtime call that
 * can fail now stops the program instead: mpiad_ensure, mpiad.h).
 *
 * RUN: %mpiad-cc -c -Dmain=program_main -Wall -Wextra -Werror %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/scatterv_dot_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 * RUN: %mpiad-emit %s -o - | FileCheck --check-prefix=GEN %s
 * GEN: MPI_Scatterv(((double (*)[4][4])x), sendcounts, displs, MPI_DOUBLE, &rec_buf_x, sendcounts[rank],
 * GEN: mpiad_scatterv_rev((double (*)[4][4])x_b_part, sendcounts, displs, &rec_buf_x_b, sendcounts[rank],
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 4

int main(int argc, char *argv[]) {
  int rank, size;  // for storing this process' rank, and the number of processes
  int *sendcounts; // array describing how many elements to send to each process
  int *displs;     // array describing the displacements where each segment begins

  int rem;                  // elements remaining after division among processes
  int sum = 0;              // Sum of counts. Used to calculate displacements
  double rec_buf_x[100], rec_buf_y[100]; // buffers where the received data should be stored

  // the data to be distributed
  double x[SIZE][SIZE] = {{1.0, 3.0, 6.0, 2.0},
                          {5.0, 9.0, 2.0, 5.0},
                          {4.0, 7.0, 8.0, 5.0},
                          {3.0, 4.0, 0.0, 1.0}};
  double y[SIZE][SIZE] = {{2.0, 1.0, 0.5, 3.0},
                          {1.0, 4.0, 2.0, 0.0},
                          {6.0, 1.0, 1.5, 2.0},
                          {0.5, 3.0, 7.0, 1.0}};

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  sendcounts = malloc(sizeof(int) * size);
  displs = malloc(sizeof(int) * size);
  rem = (SIZE * SIZE) % size;

  // calculate send counts and displacements
  for (int i = 0; i < size; i++) {
    sendcounts[i] = (SIZE * SIZE) / size;
    if (rem > 0) {
      sendcounts[i]++;
      rem--;
    }
    displs[i] = sum;
    sum += sendcounts[i];
  }

  // print calculated send counts and displacements for each process
  if (0 == rank) {
    for (int i = 0; i < size; i++) {
      printf("sendcounts[%d] = %d\tdispls[%d] = %d\n", i, sendcounts[i], i, displs[i]);
    }
  }

  double TotalSum = 0.0;
#pragma mpiad differentiate wrt(x, y) output(TotalSum) replicated(x, y) name(dot_b)
  {
    double ProcSum = 0.0;
    // divide the data among processes as described by sendcounts and displs
    MPI_Scatterv(&x, sendcounts, displs, MPI_DOUBLE, &rec_buf_x, sendcounts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatterv(&y, sendcounts, displs, MPI_DOUBLE, &rec_buf_y, sendcounts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD);

    for (int i = 0; i < sendcounts[rank]; i++) {
      ProcSum = ProcSum + rec_buf_x[i] * rec_buf_y[i];
    }

    MPI_Reduce(&ProcSum, &TotalSum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
      printf("Result is : %f\n", TotalSum);
    }
  }

  MPI_Finalize();

  free(sendcounts);
  free(displs);

  return 0;
}
