/* Part 8 of the make -j2 test project. */
int part8(int x) { return x * 8 + 8; }
