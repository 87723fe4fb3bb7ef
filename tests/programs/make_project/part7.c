/* Part 7 of the make -j2 test project. */
int part7(int x) { return x * 7 + 7; }
