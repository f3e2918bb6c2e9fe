#define K 2.0
