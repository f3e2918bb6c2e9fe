// Every function of mpiad.h that returns mpiad_result_t is called by
// generated code through mpiad_ensure (a failure stops the program instead
// of leaving a wrong gradient): each has its wrapping macro, and no macro
// names a function that is not declared (mpiad_ensure itself aside).  A function added to the header
// without its macro fails here.
// RUN: grep -o '^mpiad_result_t mpiad_[a-z0-9_]*(' %include/mpiad.h | sed 's/^mpiad_result_t //; s/($//' | grep -v '^mpiad_ensure$' | sort -u > %t.declared
// RUN: grep -o '^#define mpiad_[a-z0-9_]*(\.\.\.) mpiad_ensure(' %include/mpiad.h | sed 's/^#define //; s/(\.\.\.) mpiad_ensure($//' | sort -u > %t.wrapped
// RUN: diff %t.declared %t.wrapped
// RUN: test -s %t.declared
