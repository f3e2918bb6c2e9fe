/* A leading comment, then a feature-test macro in a conditional. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <string.h>

#pragma mpiad differentiate wrt(x)
double sq(double x) { return x * x; }

const char *after(const char *s) { return strchrnul(s, 'b'); }
