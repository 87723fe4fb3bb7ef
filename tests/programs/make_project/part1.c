/* Part 1 of the make -j2 test project. */
int part1(int x) { return x * 1 + 1; }
