// The program's standard descriptors in words, for `show` and for what `replay` says when a
// replay cannot give the program descriptors of the recorded kinds.
#pragma once

#include <string>
#include <vector>

#include "trace/format.h"

namespace chess::trace {

// "stdin", "stdout", "stderr".
const char* StandardName(int fd);
// The kind as one word, for JSON: "closed", "file", "pipe", "terminal", "socket", "device", "other".
const char* DescriptorKindName(StandardDescriptor::Kind kind);
// What one descriptor is, on its own: "a terminal (80×24)", "/dev/null", "a pipe", "closed".
std::string DescriptorWords(const StandardDescriptor& fd);
// All three, with what they share: "stdin /dev/null, stdout a terminal (80×24), stderr the
// same as stdout".
std::string StandardDescriptorsInWords(const StandardDescriptors& descriptors);
// One sentence per descriptor that differs between a recording and a replay: "stdout was a
// terminal (80×24) when recorded, and is a pipe in this replay". Empty when they are alike.
std::vector<std::string> DescriptorDifferences(const StandardDescriptors& recorded, const StandardDescriptors& replayed);

}  // namespace chess::trace
