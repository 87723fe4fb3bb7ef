// Prints what a trace is made of, one "key value" per line, for bench/run_benchmarks.py: the
// file's size, its decisions and threads as ReadTrace decodes them, and the record stream inside
// (its size before compression, and how many records of each kind: runs of identical decisions
// are one decision record and one repeat record).
//
//   bench_trace_stats FILE
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "trace/codec.h"
#include "trace/compression.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TRACE\n", argv[0]);
    return 2;
  }
  auto trace = chess::trace::ReadTrace(argv[1], "bench");
  if (!trace) {
    std::fprintf(stderr, "%s\n", trace.error().c_str());
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t tool_length = static_cast<uint8_t>(file[10]) | (static_cast<uint8_t>(file[11]) << 8);
  const size_t header = 12 + tool_length;
  size_t frame_size = 0;
  auto stream = chess::trace::DecompressFrame(std::string_view(file).substr(header, file.size() - header - chess::trace::kTrailerSize),
                                              size_t{1} << 34, &frame_size);
  if (!stream) {
    std::fprintf(stderr, "%s\n", stream.error().c_str());
    return 1;
  }
  std::map<int, size_t> records;
  chess::trace::ByteReader reader(stream->data(), stream->size());
  while (!reader.AtEnd() && reader.ok()) {
    const int type = reader.U8();
    reader.Bytes(reader.Varint());
    ++records[type];
  }
  size_t command_bytes = 0;
  for (const std::string& arg : trace->command.argv) command_bytes += arg.size() + 1;
  for (const std::string& variable : trace->command.env) command_bytes += variable.size() + 1;
  std::printf("file_bytes %zu\n", file.size());
  std::printf("stream_bytes %zu\n", stream->size());
  std::printf("decisions %zu\n", trace->decisions.size());
  std::printf("threads %zu\n", trace->threads.size());
  std::printf("outside_waits %zu\n", trace->outside_waits.size());
  std::printf("command_bytes %zu\n", command_bytes);
  std::printf("decision_records %zu\n", records[static_cast<int>(chess::trace::RecordType::kDecision)]);
  std::printf("repeat_records %zu\n", records[static_cast<int>(chess::trace::RecordType::kRepeat)]);
  return 0;
}
