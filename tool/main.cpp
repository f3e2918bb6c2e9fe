//===- main.cpp - mpiad-cc: source-to-source AD for MPI programs in C -----===//
#include "Driver.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

// The frontend, the analyses and the printer walk expression trees
// recursively, one frame per nesting level: a sum of 20,000 terms is 20,000
// levels deep, more than the usual 8 MiB main stack holds.  The driver runs
// on a large stack of its own (memory is committed only as it is used),
// switched to with swapcontext: a thread would do too, but glibc's malloc
// then takes its locks and the tool runs about 25% slower.  The frontend
// rejects deeper expressions with a located error (mpiad::kMaxExprDepth).

namespace {

int gArgc = 0;
const char **gArgv = nullptr;
int gStatus = 1;
ucontext_t gMain, gDriver;

void runOnLargeStack() { gStatus = mpiad::runDriver(gArgc, gArgv); }

} // namespace

int main(int argc, const char **argv) {
  size_t size = mpiad::kDriverStackBytes;
  void *stack = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
  if (stack == MAP_FAILED || getcontext(&gDriver) != 0)
    return mpiad::runDriver(argc, argv); // the usual stack, then
  // A guard page below the stack: an overflow faults instead of writing
  // over other memory.
  mprotect(stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
  gArgc = argc;
  gArgv = argv;
  gDriver.uc_stack.ss_sp = stack;
  gDriver.uc_stack.ss_size = size;
  gDriver.uc_link = &gMain;
  makecontext(&gDriver, runOnLargeStack, 0);
  if (swapcontext(&gMain, &gDriver) != 0)
    return mpiad::runDriver(argc, argv);
  return gStatus;
}
