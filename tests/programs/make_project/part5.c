/* Part 5 of the make -j2 test project. */
int part5(int x) { return x * 5 + 5; }
