/* Part 6 of the make -j2 test project. */
int part6(int x) { return x * 6 + 6; }
