#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#pragma mpiad differentiate wrt(x)
double sq(double x) { return x * x; }

/* strchrnul is declared only when _GNU_SOURCE is defined before the first
   header. */
const char *after(const char *s) { return strchrnul(s, 'b'); }
