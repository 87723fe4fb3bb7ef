/* The make -j2 test project: eight objects, an archive and a program. */
#include <stdio.h>

int part1(int), part2(int), part3(int), part4(int), part5(int), part6(int), part7(int), part8(int);

int main(void) {
  printf("%d\n", part1(1) + part2(2) + part3(3) + part4(4) + part5(5) + part6(6) + part7(7) + part8(8));
  return 0;
}
