/* No mpiad pragma here, though the word mpiad appears: compiled as given. */
#include <stdio.h>

int main(void) {
  printf("%s:%d\n", __FILE__, __LINE__);
  return 0;
}
