#include "k.h"

#pragma mpiad differentiate wrt(x)
double f(double x) { return K * x * x; }
