#define AFTER_SCALE 5.0
