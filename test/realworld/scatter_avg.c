/* Corpus program: the average of numbers spread from the root, in the shape
 * of mpitutorial.com's avg.c (Wes Kendall, github.com/mpitutorial/
 * mpitutorial, tutorials/mpi-scatter-gather-and-allgather) as the tutorial
 * has it: everything in main; the root creates num_elements_per_proc *
 * world_size random floats (rand_nums is NULL on the other processes),
 * MPI_Scatter deals them out, each process averages its part with the
 * helper compute_avg, MPI_Gather brings the sub-averages to the root into
 * a buffer only the root allocates (`if (world_rank == 0) { sub_avgs =
 * malloc(...); assert(sub_avgs != NULL); }`), and the root averages them
 * and, for comparison, the original data. Written for mpiad in that
 * program's shape (its idioms, not its text).
 * The mpiad edits: braces around the computation and the pragma in front of
 * them; avg is declared before the braces (the tutorial declares it in the
 * root's branch), and the block's buffers are freed in the block (the
 * tutorial frees them at the end of main).
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/scatter_avg_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <assert.h>
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

// Computes the average of an array of numbers
float compute_avg(float *array, int num_elements) {
  float sum = 0.f;
  int i;
  for (i = 0; i < num_elements; i++) {
    sum += array[i];
  }
  return sum / num_elements;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "Usage: avg num_elements_per_proc\n");
    exit(1);
  }
  int num_elements_per_proc = atoi(argv[1]);
  srand(time(NULL));
  MPI_Init(NULL, NULL);
  int world_rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int world_size;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  // Create a random array of elements on the root process. Its total
  // size will be the number of elements per process times the number
  // of processes
  float *rand_nums = NULL;
  if (world_rank == 0) {
    rand_nums = create_rand_nums(num_elements_per_proc * world_size);
  }
  float avg = 0;
#pragma mpiad differentiate wrt(rand_nums) output(avg) varying(rand_nums) replicated(num_elements_per_proc) name(avg_b)
  {
    // For each process, create a buffer that will hold a subset of the
    // entire array
    float *sub_rand_nums = (float *)malloc(sizeof(float) * num_elements_per_proc);
    assert(sub_rand_nums != NULL);
    // Scatter the random numbers from the root process to all processes
    MPI_Scatter(rand_nums, num_elements_per_proc, MPI_FLOAT, sub_rand_nums,
                num_elements_per_proc, MPI_FLOAT, 0, MPI_COMM_WORLD);
    // Compute the average of your subset
    float sub_avg = compute_avg(sub_rand_nums, num_elements_per_proc);
    float *sub_avgs = NULL;
    if (world_rank == 0) {
      sub_avgs = (float *)malloc(sizeof(float) * world_size);
      assert(sub_avgs != NULL);
    }
    // Gather all partial averages down to the root process
    MPI_Gather(&sub_avg, 1, MPI_FLOAT, sub_avgs, 1, MPI_FLOAT, 0, MPI_COMM_WORLD);
    // Now that we have all of the partial averages on the root, compute
    // the total average of all numbers
    if (world_rank == 0) {
      avg = compute_avg(sub_avgs, world_size);
      printf("Avg of all elements is %f\n", avg);
      float original_data_avg =
          compute_avg(rand_nums, num_elements_per_proc * world_size);
      printf("Avg computed across original data is %f\n", original_data_avg);
    }
    if (world_rank == 0) {
      free(sub_avgs);
    }
    free(sub_rand_nums);
  }
  if (world_rank == 0) {
    free(rand_nums);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
}
