// SPDY/3.1 framing, as Kubernetes streaming (`kubectl port-forward`, exec) still speaks it: the
// frame layout, and the zlib-compressed header blocks with the SPDY/3 dictionary. A FrameReader
// turns bytes into frames, a FrameWriter frames into bytes; each owns the compression context of
// one direction of one connection (the contexts run across frames), so a connection needs exactly
// one of each and frames must be written in the order they are produced.
//
// Only what the Kubernetes streaming protocols use is modelled: DATA, SYN_STREAM, SYN_REPLY,
// RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS and WINDOW_UPDATE are parsed (unknown control
// frames are skipped, as the specification asks); no flow control is enforced (Go's spdystream,
// the peer, does not either).
//
// Usage:
//   spdy::FrameReader reader;
//   reader.Feed(bytes);
//   while (true) {
//     TRIMTAB_ASSIGN_OR_RETURN(std::optional<spdy::Frame> frame, reader.Next());
//     if (!frame) break;  // needs more bytes
//     ...
//   }
//   spdy::FrameWriter writer;
//   std::string out = writer.SynReply(frame->stream_id, {}, /*fin=*/false);
//
// Threading: neither class is thread-safe; guard each with its connection's lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace trimtab::http::spdy {

enum class FrameType : uint16_t {
  kData = 0,  // not a control frame type; DATA frames have no type field
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
};

inline constexpr uint8_t kFlagFin = 0x01;
inline constexpr uint8_t kFlagUnidirectional = 0x02;

// RST_STREAM status codes used here.
inline constexpr uint32_t kRstProtocolError = 1;
inline constexpr uint32_t kRstInvalidStream = 2;
inline constexpr uint32_t kRstRefusedStream = 3;
inline constexpr uint32_t kRstCancel = 5;

// Header names are lower case on the wire; a name with several values keeps them in order.
using HeaderBlock = std::vector<std::pair<std::string, std::string>>;

struct Frame {
  FrameType type = FrameType::kData;
  uint8_t flags = 0;
  uint32_t stream_id = 0;  // DATA, SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE
  HeaderBlock headers;     // SYN_STREAM, SYN_REPLY, HEADERS
  std::string data;        // DATA payload
  // RST_STREAM and GOAWAY status, PING id, WINDOW_UPDATE delta, GOAWAY last-good-stream-id in
  // stream_id.
  uint32_t value = 0;

  bool fin() const { return (flags & kFlagFin) != 0; }
  // The first value of header `name` (lower case), or "".
  std::string Header(std::string_view name) const;
};

// The SPDY/3 header compression dictionary (the specification's section 2.6.10.1).
const std::string& HeaderDictionary();

class FrameReader {
 public:
  FrameReader();
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  void Feed(std::string_view bytes);
  // The next complete frame; nullopt when more bytes are needed. An error (a frame of another
  // SPDY version, a header block that does not decompress or parse) leaves the connection
  // unusable: the caller sends GOAWAY and closes.
  StatusOr<std::optional<Frame>> Next();

 private:
  StatusOr<HeaderBlock> DecodeHeaders(std::string_view compressed);

  std::string buffer_;
  size_t offset_ = 0;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
};

class FrameWriter {
 public:
  FrameWriter();
  ~FrameWriter();
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  // DATA frames for `data` (split at 32 KiB); `fin` on the last one (an empty frame when
  // `data` is empty).
  std::string Data(uint32_t stream_id, std::string_view data, bool fin);
  std::string SynStream(uint32_t stream_id, const HeaderBlock& headers, bool fin);
  std::string SynReply(uint32_t stream_id, const HeaderBlock& headers, bool fin);
  std::string RstStream(uint32_t stream_id, uint32_t status);
  std::string Ping(uint32_t id);
  std::string GoAway(uint32_t last_good_stream_id, uint32_t status);

 private:
  std::string EncodeHeaders(const HeaderBlock& headers);

  struct Deflater;
  std::unique_ptr<Deflater> deflater_;
};

}  // namespace trimtab::http::spdy
