// JsonValue reads what JsonWriter writes, and refuses what is not JSON.
#include "cli/json_reader.h"

#include <gtest/gtest.h>

#include "cli/json_writer.h"

namespace chess::cli {
namespace {

TEST(JsonReader, ReadsWhatTheWriterWrites) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(2);
  json.Key("outcome").String("signal \"SIGABRT\"\n\t\\ é \x01");
  json.Key("preemptions").OptionalInt(std::nullopt);
  json.Key("seconds").Double(1.25);
  json.Key("complete").Bool(true);
  json.Key("bugs").BeginArray().Int(-7).Int(INT64_MAX).EndArray();
  json.EndObject();
  auto read = JsonValue::Parse(json.str());
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->IntAt("schema"), 2);
  EXPECT_EQ(read->StringAt("outcome"), "signal \"SIGABRT\"\n\t\\ é \x01");
  ASSERT_NE(read->Find("preemptions"), nullptr);
  EXPECT_TRUE(read->Find("preemptions")->IsNull());
  EXPECT_EQ(read->IntAt("preemptions"), std::nullopt);
  EXPECT_DOUBLE_EQ(read->Find("seconds")->Number(), 1.25);
  EXPECT_EQ(read->Find("seconds")->Int(), std::nullopt) << "1.25 is not a whole number";
  EXPECT_TRUE(read->Find("complete")->Bool());
  ASSERT_EQ(read->Find("bugs")->Items().size(), 2u);
  EXPECT_EQ(read->Find("bugs")->Items()[0].Int(), -7);
  EXPECT_EQ(read->Find("bugs")->Items()[1].Int(), INT64_MAX);
  EXPECT_EQ(read->Find("absent"), nullptr);
  EXPECT_EQ(read->StringAt("schema"), "") << "a number is no string";
}

TEST(JsonReader, EscapesAndSurrogatePairs) {
  auto read = JsonValue::Parse(R"(["\u00e9\ud83d\ude00", "\ud800x", "\/"])");
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->Items()[0].String(), "é\xF0\x9F\x98\x80");
  EXPECT_EQ(read->Items()[1].String(), "\xEF\xBF\xBDx") << "a lone surrogate is U+FFFD";
  EXPECT_EQ(read->Items()[2].String(), "/");
}

TEST(JsonReader, RefusesWhatIsNotJson) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "{1: 2}", "01", "1.", "1e", "-", "\"abc", "\"a\x01\"",
                          "\"\\x\"", "tru", "nul", "[1] 2", "{\"a\":1,}", "\"\\u12G4\""}) {
    auto read = JsonValue::Parse(bad);
    EXPECT_FALSE(read.ok()) << "accepted: " << bad;
    if (!read.ok()) {
      EXPECT_NE(read.error().find("not JSON at byte"), std::string::npos) << read.error();
    }
  }
}

TEST(JsonReader, DeepNestingIsRefusedNotAStackOverflow) {
  const std::string deep(100000, '[');
  auto read = JsonValue::Parse(deep);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().find("nested too deeply"), std::string::npos) << read.error();
  EXPECT_TRUE(JsonValue::Parse(std::string(50, '[') + std::string(50, ']')).ok());
}

}  // namespace
}  // namespace chess::cli
