#include "adapters/http/spdy.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

namespace trimtab::http::spdy {

namespace {

void PutU32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>((v >> 24) & 0xff));
  out->push_back(static_cast<char>((v >> 16) & 0xff));
  out->push_back(static_cast<char>((v >> 8) & 0xff));
  out->push_back(static_cast<char>(v & 0xff));
}

uint32_t GetU32(std::string_view s, size_t at) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[at + i])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

uint32_t GetU24(std::string_view s, size_t at) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[at + i])); };
  return (b(0) << 16) | (b(1) << 8) | b(2);
}

// An 8-byte frame header: control bit and version 3 plus type, or the stream id for DATA; then
// flags and a 24-bit length.
std::string ControlHeader(FrameType type, uint8_t flags, size_t length) {
  std::string out;
  out.push_back(static_cast<char>(0x80));
  out.push_back(static_cast<char>(3));
  out.push_back(static_cast<char>((static_cast<uint16_t>(type) >> 8) & 0xff));
  out.push_back(static_cast<char>(static_cast<uint16_t>(type) & 0xff));
  out.push_back(static_cast<char>(flags));
  out.push_back(static_cast<char>((length >> 16) & 0xff));
  out.push_back(static_cast<char>((length >> 8) & 0xff));
  out.push_back(static_cast<char>(length & 0xff));
  return out;
}

constexpr size_t kMaxDataFrame = 32 * 1024;
constexpr size_t kMaxHeaderBlock = 1 << 20;  // decompressed; Kubernetes sends a few dozen bytes

}  // namespace

const std::string& HeaderDictionary() {
  // The dictionary is the specification's byte string: these names, each preceded by its
  // length as a 32-bit big-endian number, followed by one run of common values.
  static const std::string* dictionary = [] {
    static const char* const kNames[] = {
        "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
        "accept-encoding", "accept-language", "accept-ranges", "age", "allow", "authorization",
        "cache-control", "connection", "content-base", "content-encoding", "content-language",
        "content-length", "content-location", "content-md5", "content-range", "content-type",
        "date", "etag", "expect", "expires", "from", "host", "if-match", "if-modified-since",
        "if-none-match", "if-range", "if-unmodified-since", "last-modified", "location",
        "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
        "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent",
        "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
        "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin"};
    auto* d = new std::string();
    for (const char* name : kNames) {
      PutU32(d, static_cast<uint32_t>(std::char_traits<char>::length(name)));
      d->append(name);
    }
    d->append("100101201202205206300302303304305306307402405406407408409410411412413414415416417"
              "502504505");
    d->append("203 Non-Authoritative Information204 No Content301 Moved Permanently"
              "400 Bad Request401 Unauthorized403 Forbidden404 Not Found"
              "500 Internal Server Error501 Not Implemented503 Service Unavailable");
    d->append("Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
              "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT");
    d->append("chunked,text/html,image/png,image/jpg,image/gif,application/xml,"
              "application/xhtml+xml,text/plain,text/javascript,public");
    d->append("privatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.");
    return d;
  }();
  return *dictionary;
}

std::string Frame::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() &&
        std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return v;
    }
  }
  return "";
}

struct FrameReader::Inflater {
  z_stream z{};
  bool ok = false;
  Inflater() { ok = inflateInit(&z) == Z_OK; }
  ~Inflater() {
    if (ok) inflateEnd(&z);
  }
};

struct FrameWriter::Deflater {
  z_stream z{};
  bool ok = false;
  Deflater() {
    ok = deflateInit(&z, Z_DEFAULT_COMPRESSION) == Z_OK;
    const std::string& dict = HeaderDictionary();
    if (ok) {
      ok = deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()),
                                static_cast<uInt>(dict.size())) == Z_OK;
    }
  }
  ~Deflater() { deflateEnd(&z); }
};

FrameReader::FrameReader() : inflater_(std::make_unique<Inflater>()) {}
FrameReader::~FrameReader() = default;

void FrameReader::Feed(std::string_view bytes) {
  if (offset_ > 0 && offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  } else if (offset_ > 64 * 1024) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  buffer_.append(bytes);
}

StatusOr<HeaderBlock> FrameReader::DecodeHeaders(std::string_view compressed) {
  if (!inflater_->ok) return InternalError("spdy: zlib inflate unavailable");
  z_stream& z = inflater_->z;
  std::string plain;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  char out[4096];
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = sizeof(out);
    int rc = inflate(&z, Z_SYNC_FLUSH);
    if (rc == Z_NEED_DICT) {
      const std::string& dict = HeaderDictionary();
      if (inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()),
                               static_cast<uInt>(dict.size())) != Z_OK) {
        return InvalidArgumentError("spdy: the header block names another dictionary");
      }
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR && rc != Z_STREAM_END) {
      return InvalidArgumentError(std::string("spdy: header block does not decompress: ") +
                                  (z.msg ? z.msg : "zlib error " + std::to_string(rc)));
    }
    plain.append(out, sizeof(out) - z.avail_out);
    if (plain.size() > kMaxHeaderBlock) return InvalidArgumentError("spdy: header block too large");
    if (rc == Z_BUF_ERROR || rc == Z_STREAM_END || (z.avail_in == 0 && z.avail_out != 0)) break;
  }
  // A block: count, then (length, name, length, value) pairs; values hold NUL-separated lists.
  HeaderBlock headers;
  std::string_view p(plain);
  if (p.size() < 4) return InvalidArgumentError("spdy: header block shorter than its count");
  uint32_t count = GetU32(p, 0);
  size_t at = 4;
  for (uint32_t i = 0; i < count; ++i) {
    std::string parts[2];
    for (std::string& part : parts) {
      if (p.size() - at < 4) return InvalidArgumentError("spdy: truncated header block");
      uint32_t len = GetU32(p, at);
      at += 4;
      if (p.size() - at < len) return InvalidArgumentError("spdy: truncated header block");
      part = std::string(p.substr(at, len));
      at += len;
    }
    std::string name = parts[0];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t start = 0;
    const std::string& value = parts[1];
    while (true) {
      size_t nul = value.find('\0', start);
      headers.emplace_back(name, value.substr(start, nul == std::string::npos ? nul : nul - start));
      if (nul == std::string::npos) break;
      start = nul + 1;
    }
  }
  return headers;
}

StatusOr<std::optional<Frame>> FrameReader::Next() {
  std::string_view b(buffer_);
  b.remove_prefix(offset_);
  if (b.size() < 8) return std::optional<Frame>();
  const size_t length = GetU24(b, 5);
  if (b.size() < 8 + length) return std::optional<Frame>();
  std::string_view payload = b.substr(8, length);
  Frame frame;
  frame.flags = static_cast<uint8_t>(b[4]);
  const bool control = (static_cast<unsigned char>(b[0]) & 0x80) != 0;
  offset_ += 8 + length;
  if (!control) {
    frame.type = FrameType::kData;
    frame.stream_id = GetU32(b, 0) & 0x7fffffff;
    frame.data = std::string(payload);
    return std::optional<Frame>(std::move(frame));
  }
  const uint16_t version = static_cast<uint16_t>(
      ((static_cast<unsigned char>(b[0]) & 0x7f) << 8) | static_cast<unsigned char>(b[1]));
  if (version != 3) {
    return InvalidArgumentError("spdy: frame of version " + std::to_string(version) +
                                ", want 3");
  }
  const uint16_t type = static_cast<uint16_t>((static_cast<unsigned char>(b[2]) << 8) |
                                              static_cast<unsigned char>(b[3]));
  auto need = [&](size_t n, const char* what) -> Status {
    if (length < n) return InvalidArgumentError(std::string("spdy: short ") + what + " frame");
    return Status::Ok();
  };
  switch (static_cast<FrameType>(type)) {
    case FrameType::kSynStream: {
      TRIMTAB_RETURN_IF_ERROR(need(10, "SYN_STREAM"));
      frame.type = FrameType::kSynStream;
      frame.stream_id = GetU32(payload, 0) & 0x7fffffff;
      TRIMTAB_ASSIGN_OR_RETURN(frame.headers, DecodeHeaders(payload.substr(10)));
      break;
    }
    case FrameType::kSynReply:
    case FrameType::kHeaders: {
      TRIMTAB_RETURN_IF_ERROR(need(4, "SYN_REPLY/HEADERS"));
      frame.type = static_cast<FrameType>(type);
      frame.stream_id = GetU32(payload, 0) & 0x7fffffff;
      TRIMTAB_ASSIGN_OR_RETURN(frame.headers, DecodeHeaders(payload.substr(4)));
      break;
    }
    case FrameType::kRstStream:
    case FrameType::kGoAway:
    case FrameType::kWindowUpdate: {
      TRIMTAB_RETURN_IF_ERROR(need(8, "RST_STREAM/GOAWAY/WINDOW_UPDATE"));
      frame.type = static_cast<FrameType>(type);
      frame.stream_id = GetU32(payload, 0) & 0x7fffffff;
      frame.value = GetU32(payload, 4);
      if (frame.type == FrameType::kWindowUpdate) frame.value &= 0x7fffffff;
      break;
    }
    case FrameType::kPing: {
      TRIMTAB_RETURN_IF_ERROR(need(4, "PING"));
      frame.type = FrameType::kPing;
      frame.value = GetU32(payload, 0);
      break;
    }
    case FrameType::kSettings:
      frame.type = FrameType::kSettings;  // the entries are not used
      break;
    default:
      // Unknown control frames are ignored (SPDY/3 section 2.2.1).
      return Next();
  }
  return std::optional<Frame>(std::move(frame));
}

FrameWriter::FrameWriter() : deflater_(std::make_unique<Deflater>()) {}
FrameWriter::~FrameWriter() = default;

std::string FrameWriter::EncodeHeaders(const HeaderBlock& headers) {
  // Values of one name are joined with NUL, names lower case, in first-seen order.
  std::vector<std::pair<std::string, std::string>> joined;
  for (const auto& [k, v] : headers) {
    std::string name = k;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = std::find_if(joined.begin(), joined.end(), [&](const auto& e) { return e.first == name; });
    if (it == joined.end()) {
      joined.emplace_back(name, v);
    } else {
      it->second.push_back('\0');
      it->second += v;
    }
  }
  std::string plain;
  PutU32(&plain, static_cast<uint32_t>(joined.size()));
  for (const auto& [k, v] : joined) {
    PutU32(&plain, static_cast<uint32_t>(k.size()));
    plain += k;
    PutU32(&plain, static_cast<uint32_t>(v.size()));
    plain += v;
  }
  z_stream& z = deflater_->z;
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  char buf[4096];
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    deflate(&z, Z_SYNC_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  } while (z.avail_out == 0);
  return out;
}

std::string FrameWriter::Data(uint32_t stream_id, std::string_view data, bool fin) {
  std::string out;
  do {
    std::string_view part = data.substr(0, std::min(data.size(), kMaxDataFrame));
    data.remove_prefix(part.size());
    const bool last = data.empty();
    PutU32(&out, stream_id & 0x7fffffff);
    out.push_back(static_cast<char>(last && fin ? kFlagFin : 0));
    out.push_back(static_cast<char>((part.size() >> 16) & 0xff));
    out.push_back(static_cast<char>((part.size() >> 8) & 0xff));
    out.push_back(static_cast<char>(part.size() & 0xff));
    out.append(part);
  } while (!data.empty());
  return out;
}

std::string FrameWriter::SynStream(uint32_t stream_id, const HeaderBlock& headers, bool fin) {
  std::string block = EncodeHeaders(headers);
  std::string out = ControlHeader(FrameType::kSynStream, fin ? kFlagFin : 0, 10 + block.size());
  PutU32(&out, stream_id & 0x7fffffff);
  PutU32(&out, 0);  // associated-to stream
  out.push_back(0);  // priority
  out.push_back(0);  // slot
  return out + block;
}

std::string FrameWriter::SynReply(uint32_t stream_id, const HeaderBlock& headers, bool fin) {
  std::string block = EncodeHeaders(headers);
  std::string out = ControlHeader(FrameType::kSynReply, fin ? kFlagFin : 0, 4 + block.size());
  PutU32(&out, stream_id & 0x7fffffff);
  return out + block;
}

std::string FrameWriter::RstStream(uint32_t stream_id, uint32_t status) {
  std::string out = ControlHeader(FrameType::kRstStream, 0, 8);
  PutU32(&out, stream_id & 0x7fffffff);
  PutU32(&out, status);
  return out;
}

std::string FrameWriter::Ping(uint32_t id) {
  std::string out = ControlHeader(FrameType::kPing, 0, 4);
  PutU32(&out, id);
  return out;
}

std::string FrameWriter::GoAway(uint32_t last_good_stream_id, uint32_t status) {
  std::string out = ControlHeader(FrameType::kGoAway, 0, 8);
  PutU32(&out, last_good_stream_id & 0x7fffffff);
  PutU32(&out, status);
  return out;
}

}  // namespace trimtab::http::spdy
