#include "core/chain/executor_plugin.h"

namespace trimtab::core {

std::string_view ChainVerdictName(ChainVerdict v) {
  switch (v) {
    case ChainVerdict::kApprove:
      return "approve";
    case ChainVerdict::kModify:
      return "modify";
    case ChainVerdict::kVeto:
      return "veto";
  }
  return "unknown";
}

StatusOr<ChainVerdict> ParseChainVerdict(std::string_view text) {
  if (text == "approve") return ChainVerdict::kApprove;
  if (text == "modify") return ChainVerdict::kModify;
  if (text == "veto") return ChainVerdict::kVeto;
  return InvalidArgumentError("unknown verdict \"" + std::string(text) +
                              "\" (want approve, modify or veto)");
}

ExecutorResult ExecutorResult::Approve(std::string reason) {
  return ExecutorResult{.verdict = ChainVerdict::kApprove, .summaries = {},
                        .reason = std::move(reason)};
}

ExecutorResult ExecutorResult::Modify(ScalingSummaries summaries, std::string reason) {
  return ExecutorResult{.verdict = ChainVerdict::kModify, .summaries = std::move(summaries),
                        .reason = std::move(reason)};
}

ExecutorResult ExecutorResult::Veto(std::string reason) {
  return ExecutorResult{.verdict = ChainVerdict::kVeto, .summaries = {},
                        .reason = std::move(reason)};
}

}  // namespace trimtab::core
