/* Part 4 of the make -j2 test project. */
int part4(int x) { return x * 4 + 4; }
