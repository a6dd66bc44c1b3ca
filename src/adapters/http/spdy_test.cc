// SPDY/3.1 framing (spdy.h): frames written by one side are read back by the other, across
// arbitrary splits of the byte stream, with the compression contexts running across frames.
#include "adapters/http/spdy.h"

#include <gtest/gtest.h>

#include <zlib.h>

namespace trimtab::http::spdy {
namespace {

std::vector<Frame> ReadAll(FrameReader& reader) {
  std::vector<Frame> frames;
  while (true) {
    auto next = reader.Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    frames.push_back(std::move(**next));
  }
  return frames;
}

TEST(SpdyTest, TheDictionaryIsTheSpecifications) {
  const std::string& d = HeaderDictionary();
  EXPECT_EQ(d.size(), 1423u);
  EXPECT_EQ(d.substr(0, 11), std::string("\0\0\0\7options", 11));
  EXPECT_EQ(d.substr(d.size() - 6), "enq=0.");
}

TEST(SpdyTest, FramesRoundTripByteByByte) {
  FrameWriter writer;
  std::string bytes;
  // Several header blocks in a row: the second and third depend on the first's context.
  for (uint32_t id : {1u, 3u, 5u}) {
    bytes += writer.SynStream(id, {{"streamType", "data"}, {"port", "8081"},
                                   {"requestID", std::to_string(id)}}, false);
  }
  bytes += writer.SynReply(3, {{"a", "1"}, {"a", "2"}}, false);
  bytes += writer.Data(3, std::string(70000, 'x'), true);
  bytes += writer.Ping(7);
  bytes += writer.RstStream(5, kRstCancel);
  bytes += writer.GoAway(5, 0);
  FrameReader reader;
  std::vector<Frame> frames;
  for (char c : bytes) {
    reader.Feed(std::string_view(&c, 1));
    for (Frame& f : ReadAll(reader)) frames.push_back(std::move(f));
  }
  ASSERT_EQ(frames.size(), 3u + 1u + 3u + 3u);
  EXPECT_EQ(frames[0].type, FrameType::kSynStream);
  EXPECT_EQ(frames[2].stream_id, 5u);
  EXPECT_EQ(frames[2].Header("streamtype"), "data");
  EXPECT_EQ(frames[2].Header("requestid"), "5");
  EXPECT_EQ(frames[2].Header("port"), "8081");
  EXPECT_EQ(frames[3].type, FrameType::kSynReply);
  ASSERT_EQ(frames[3].headers.size(), 2u);  // NUL-separated values come back as two
  EXPECT_EQ(frames[3].headers[1], (std::pair<std::string, std::string>("a", "2")));
  std::string data;
  for (int i = 4; i < 7; ++i) {
    EXPECT_EQ(frames[i].type, FrameType::kData);
    EXPECT_EQ(frames[i].fin(), i == 6);  // 70000 bytes: three frames, FIN on the last
    data += frames[i].data;
  }
  EXPECT_EQ(data, std::string(70000, 'x'));
  EXPECT_EQ(frames[7].type, FrameType::kPing);
  EXPECT_EQ(frames[7].value, 7u);
  EXPECT_EQ(frames[8].type, FrameType::kRstStream);
  EXPECT_EQ(frames[8].value, kRstCancel);
  EXPECT_EQ(frames[9].type, FrameType::kGoAway);
}

TEST(SpdyTest, AnEmptyDataFrameCarriesTheFin) {
  FrameWriter writer;
  FrameReader reader;
  reader.Feed(writer.Data(9, "", true));
  auto frames = ReadAll(reader);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_TRUE(frames[0].fin());
  EXPECT_EQ(frames[0].data, "");
}

TEST(SpdyTest, BadInputIsAnError) {
  FrameReader other_version;
  other_version.Feed(std::string("\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01", 12));
  EXPECT_FALSE(other_version.Next().ok());
  // A SYN_STREAM whose header block is not zlib data.
  FrameReader garbage;
  garbage.Feed(std::string("\x80\x03\x00\x01\x00\x00\x00\x0e\x00\x00\x00\x01\x00\x00\x00\x00"
                           "\x00\x00\xde\xad\xbe\xef", 22));
  EXPECT_FALSE(garbage.Next().ok());
  // Unknown control frames are skipped.
  FrameReader unknown;
  unknown.Feed(std::string("\x80\x03\x00\x0f\x00\x00\x00\x00", 8) +
               FrameWriter().Ping(3));
  auto frames = ReadAll(unknown);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].type, FrameType::kPing);
}

}  // namespace
}  // namespace trimtab::http::spdy
