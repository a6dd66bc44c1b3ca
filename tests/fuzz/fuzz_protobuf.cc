// The API server's Kubernetes-protobuf body decoder: any bytes give an object or an ApiError.
#include <nlohmann/json.hpp>

#include "cluster/apiserver/handlers/protobuf_decode.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  std::string body(trimtab::cluster::kK8sProtobufMagic);
  body.append(reinterpret_cast<const char*>(data), size);
  auto decoded = cluster::DecodeProtobufBody(body);
  if (decoded.ok()) static_cast<void>(decoded->dump());  // must be valid UTF-8 JSON
  auto raw = cluster::DecodeProtobufBody(fuzz::AsText(data, size));
  if (raw.ok()) static_cast<void>(raw->dump());
  return 0;
}
