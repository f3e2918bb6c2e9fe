/* Corpus program: parallel odd-even transposition sort, in the shape of
 * Pacheco's mpi_odd_even.c (P. Pacheco, An Introduction to Parallel
 * Programming, chapter 3): each process sorts its block of keys, then p
 * phases exchange whole blocks with the even or the odd partner by
 * MPI_Sendrecv (MPI_PROC_NULL where a process idles, skipped by the
 * book's `if (even_partner >= 0)`), the partner choice by `my_rank % 2`,
 * and Merge_low / Merge_high keep the low or high half of the two sorted
 * blocks with `while` loops, data-dependent branches, `t_i++; m_i++;` and
 * a memcpy back; the helpers take `double keys[]` parameters and the phase
 * helper Odd_even_iter communicates (inlined). Written for mpiad in that
 * program's shape (its idioms, not its text), with keys of type double (a
 * sort of measurements, whose sorted values a user differentiates: the
 * derivative is the permutation). The edits: the pragma before Sort, and
 * the book's `qsort(local_A, local_n, sizeof(int), Compare)` replaced by
 * an insertion sort defined in the file (mpiad cannot follow the
 * permutation of a library sort, and says so:
 * test/lit/diag/qsort-active.c). Sort_b leaves local_A as its reverse
 * sweep restored it (the warning -Wmpiad-restored-output says so).
 *
 * RUN: %mpiad-cc -c -Dmain=program_main -Wall -Wextra -Werror -Wno-mpiad-restored-output %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/odd_even_sort_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int RMAX = 100;

void Generate_list(double local_A[], int local_n, int my_rank);
void Print_global_list(double local_A[], int local_n, int my_rank, int p,
                       MPI_Comm comm);
void Insertion_sort(double a[], int n);
void Merge_low(double my_keys[], double recv_keys[], double temp_keys[],
               int local_n);
void Merge_high(double local_A[], double temp_B[], double temp_C[],
                int local_n);
void Odd_even_iter(double local_A[], double temp_B[], double temp_C[],
                   int local_n, int phase, int even_partner, int odd_partner,
                   int my_rank, int p, MPI_Comm comm);
void Sort(double local_A[], int local_n, int my_rank, int p, MPI_Comm comm);

int main(int argc, char *argv[]) {
  int my_rank, p;
  double *local_A;
  int global_n;
  int local_n;
  MPI_Comm comm;

  MPI_Init(&argc, &argv);
  comm = MPI_COMM_WORLD;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &my_rank);

  global_n = argc > 1 ? atoi(argv[1]) : 4 * p;
  local_n = global_n / p;
  local_A = (double *)malloc(local_n * sizeof(double));
  Generate_list(local_A, local_n, my_rank);
  Sort(local_A, local_n, my_rank, p, comm);
  Print_global_list(local_A, local_n, my_rank, p, comm);

  free(local_A);
  MPI_Finalize();
  return 0;
}

/* Keys in [0, RMAX), a different stream on each process */
void Generate_list(double local_A[], int local_n, int my_rank) {
  int i;
  srandom(my_rank + 1);
  for (i = 0; i < local_n; i++)
    local_A[i] = (double)(random() % (1000 * RMAX)) / 1000.0;
}

/* Process 0 gathers and prints the sorted list */
void Print_global_list(double local_A[], int local_n, int my_rank, int p,
                       MPI_Comm comm) {
  double *A = NULL;
  int i, n;

  if (my_rank == 0) {
    n = p * local_n;
    A = (double *)malloc(n * sizeof(double));
    MPI_Gather(local_A, local_n, MPI_DOUBLE, A, local_n, MPI_DOUBLE, 0, comm);
    printf("Global list:\n");
    for (i = 0; i < n; i++)
      printf("%.3f ", A[i]);
    printf("\n\n");
    free(A);
  } else {
    MPI_Gather(local_A, local_n, MPI_DOUBLE, A, local_n, MPI_DOUBLE, 0, comm);
  }
}

/* Sort the local keys (the book calls qsort here) */
void Insertion_sort(double a[], int n) {
  int i, j;
  double key;
  for (i = 1; i < n; i++) {
    key = a[i];
    for (j = i - 1; j >= 0 && a[j] > key; j--)
      a[j + 1] = a[j];
    a[j + 1] = key;
  }
}

/* Sort local list, use odd-even sort to sort global list */
#pragma mpiad differentiate wrt(local_A) output(local_A) varying(local_A, my_rank)
void Sort(double local_A[], int local_n, int my_rank, int p, MPI_Comm comm) {
  int phase;
  double *temp_B, *temp_C;
  int even_partner; /* phase is even or left-looking */
  int odd_partner;  /* phase is odd or right-looking */

  /* Temporary storage used in merge-split */
  temp_B = (double *)malloc(local_n * sizeof(double));
  temp_C = (double *)malloc(local_n * sizeof(double));

  /* Find partners:  negative rank => do nothing during phase */
  if (my_rank % 2 != 0) {
    even_partner = my_rank - 1;
    odd_partner = my_rank + 1;
    if (odd_partner == p)
      odd_partner = MPI_PROC_NULL; /* Idle during odd phase */
  } else {
    even_partner = my_rank + 1;
    if (even_partner == p)
      even_partner = MPI_PROC_NULL; /* Idle during even phase */
    odd_partner = my_rank - 1;
  }

  /* Sort local keys */
  Insertion_sort(local_A, local_n);

  for (phase = 0; phase < p; phase++)
    Odd_even_iter(local_A, temp_B, temp_C, local_n, phase, even_partner,
                  odd_partner, my_rank, p, comm);

  free(temp_B);
  free(temp_C);
}

/* One iteration of the odd-even transposition sort */
void Odd_even_iter(double local_A[], double temp_B[], double temp_C[],
                   int local_n, int phase, int even_partner, int odd_partner,
                   int my_rank, int p, MPI_Comm comm) {
  MPI_Status status;
  (void)p;

  if (phase % 2 == 0) { /* even phase */
    if (even_partner >= 0) {
      MPI_Sendrecv(local_A, local_n, MPI_DOUBLE, even_partner, 0, temp_B,
                   local_n, MPI_DOUBLE, even_partner, 0, comm, &status);
      if (my_rank % 2 != 0)
        Merge_high(local_A, temp_B, temp_C, local_n);
      else
        Merge_low(local_A, temp_B, temp_C, local_n);
    }
  } else { /* odd phase */
    if (odd_partner >= 0) {
      MPI_Sendrecv(local_A, local_n, MPI_DOUBLE, odd_partner, 0, temp_B,
                   local_n, MPI_DOUBLE, odd_partner, 0, comm, &status);
      if (my_rank % 2 != 0)
        Merge_low(local_A, temp_B, temp_C, local_n);
      else
        Merge_high(local_A, temp_B, temp_C, local_n);
    }
  }
}

/* Merge the smallest local_n elements in my_keys and recv_keys into
 * temp_keys, then copy temp_keys back into my_keys. */
void Merge_low(double my_keys[], double recv_keys[], double temp_keys[],
               int local_n) {
  int m_i, r_i, t_i;

  m_i = r_i = t_i = 0;
  while (t_i < local_n) {
    if (my_keys[m_i] <= recv_keys[r_i]) {
      temp_keys[t_i] = my_keys[m_i];
      t_i++;
      m_i++;
    } else {
      temp_keys[t_i] = recv_keys[r_i];
      t_i++;
      r_i++;
    }
  }
  memcpy(my_keys, temp_keys, local_n * sizeof(double));
}

/* Merge the largest local_n elements in local_A and temp_B into temp_C,
 * then copy temp_C back into local_A. */
void Merge_high(double local_A[], double temp_B[], double temp_C[],
                int local_n) {
  int ai, bi, ci;

  ai = local_n - 1;
  bi = local_n - 1;
  ci = local_n - 1;
  while (ci >= 0) {
    if (local_A[ai] >= temp_B[bi]) {
      temp_C[ci] = local_A[ai];
      ci--;
      ai--;
    } else {
      temp_C[ci] = temp_B[bi];
      ci--;
      bi--;
    }
  }
  memcpy(local_A, temp_C, local_n * sizeof(double));
}
