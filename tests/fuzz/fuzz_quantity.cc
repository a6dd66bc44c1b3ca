// Quantity::Parse: any text parses or fails; the canonical form of a parsed quantity parses
// to an equal one.
#include "common/quantity.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimtab;
  StatusOr<Quantity> q = Quantity::Parse(fuzz::AsText(data, size));
  if (!q.ok()) return 0;
  const std::string canonical = q->String();
  StatusOr<Quantity> again = Quantity::Parse(canonical);
  if (!again.ok()) fuzz::Fail("String(q) does not parse");
  if (again->Compare(*q) != 0) fuzz::Fail("Parse(String(q)) != q");
  static_cast<void>(q->MilliValue());
  static_cast<void>(q->Value());
  static_cast<void>(q->AsApproximateFloat64());
  return 0;
}
