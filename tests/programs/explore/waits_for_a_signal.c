/* waits_for_a_signal: the main thread waits in pause() for a signal nobody in the tree will send
 * — only the outside world could. Not a bug of the corpus: the program of the golden test of a
 * `hang` report (explore ends it after --external-wait). */
#include <unistd.h>

int main(void) {
  pause();
  return 0;
}
