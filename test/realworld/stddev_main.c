/* Corpus program: the mean and standard deviation of numbers spread over the
 * ranks, in the shape of mpitutorial.com's reduce_stddev.c (Wes Kendall,
 * github.com/mpitutorial/mpitutorial, tutorials/mpi-reduce-and-allreduce)
 * as the tutorial has it: everything in main.  Float data, an MPI_Allreduce
 * of the local sums for the mean, an MPI_Reduce of the squared differences
 * to rank 0, which prints the answer.  Written for mpiad in that program's
 * shape (its idioms, not its text).
 * The mpiad edits: braces around the computation and the pragma in front of
 * them (stddev is declared before the braces, where the tutorial declares it
 * in the rank-0 branch, so that it outlives the block).
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/stddev_main_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <assert.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// Creates an array of random numbers. Each number has a value from 0 - 1
float *create_rand_nums(int num_elements) {
  float *rand_nums = (float *)malloc(sizeof(float) * num_elements);
  assert(rand_nums != NULL);
  int i;
  for (i = 0; i < num_elements; i++) {
    rand_nums[i] = (rand() / (float)RAND_MAX);
  }
  return rand_nums;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "Usage: avg num_elements_per_proc\n");
    exit(1);
  }

  int num_elements_per_proc = atoi(argv[1]);

  MPI_Init(NULL, NULL);

  int world_rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int world_size;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  // Create a random array of elements on all processes.
  srand(time(NULL) * world_rank);
  float *rand_nums = NULL;
  rand_nums = create_rand_nums(num_elements_per_proc);

  float stddev = 0;
#pragma mpiad differentiate wrt(rand_nums) output(stddev) varying(rand_nums) replicated(num_elements_per_proc) name(stddev_b)
  {
    // Sum the numbers locally
    float local_sum = 0;
    int i;
    for (i = 0; i < num_elements_per_proc; i++) {
      local_sum += rand_nums[i];
    }

    // Reduce all of the local sums into the global sum in order to
    // calculate the mean
    float global_sum;
    MPI_Allreduce(&local_sum, &global_sum, 1, MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    float mean = global_sum / (num_elements_per_proc * world_size);

    // Compute the local sum of the squared differences from the mean
    float local_sq_diff = 0;
    for (i = 0; i < num_elements_per_proc; i++) {
      local_sq_diff += (rand_nums[i] - mean) * (rand_nums[i] - mean);
    }

    // Reduce the global sum of the squared differences to the root process
    // and print off the answer
    float global_sq_diff;
    MPI_Reduce(&local_sq_diff, &global_sq_diff, 1, MPI_FLOAT, MPI_SUM, 0,
               MPI_COMM_WORLD);

    // The standard deviation is the square root of the mean of the squared
    // differences.
    if (world_rank == 0) {
      stddev = sqrt(global_sq_diff / (num_elements_per_proc * world_size));
      printf("Mean - %f, Standard deviation = %f\n", mean, stddev);
    }
  }

  // Clean up
  free(rand_nums);

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
}
