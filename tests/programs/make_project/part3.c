/* Part 3 of the make -j2 test project. */
int part3(int x) { return x * 3 + 3; }
