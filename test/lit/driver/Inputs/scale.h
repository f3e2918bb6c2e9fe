#define SCALE 4.0
