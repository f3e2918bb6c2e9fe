#pragma mpiad differentiate wrt(x)
double ok(double x) { return x * x; }
