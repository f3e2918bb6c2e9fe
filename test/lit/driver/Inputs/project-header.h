/* A project header in the shape of the Parallel Research Kernels'
   par-res-kern_general.h: feature-test macros, then system headers, then
   short upper-case macros of the program's own. */
#ifndef PROJECT_HEADER_H
#define PROJECT_HEADER_H
#define _POSIX_C_SOURCE (200809L)
#define _XOPEN_SOURCE 600
#include <stdio.h>
#include <stdlib.h>
#define R 8.314
#define J 4.1868
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#endif
