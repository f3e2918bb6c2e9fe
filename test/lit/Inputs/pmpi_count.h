/* pmpi_count.h - a PMPI interposition layer (pmpi_count.c) counting the
 * collective calls of the process and the bytes of their payload. */
#ifndef MPIAD_TEST_PMPI_COUNT_H
#define MPIAD_TEST_PMPI_COUNT_H
/* calls and payload bytes since the start of the program */
void pmpi_count_get(long long *calls, long long *bytes);
#endif
