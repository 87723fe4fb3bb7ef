/* Part 2 of the make -j2 test project. */
int part2(int x) { return x * 2 + 2; }
