#define _POSIX_C_SOURCE 199309L
#include <stdio.h>

#pragma mpiad differentiate wrt(x)
double sq(double x) { return x * x; }
