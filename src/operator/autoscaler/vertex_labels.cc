#include "operator/autoscaler/vertex_labels.h"

#include <cctype>

#include <nlohmann/json.hpp>

namespace trimtab::op {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

VertexLabels::VertexLabels(const core::JobTopology& topology) {
  std::map<std::string, int> uses;
  for (const core::VertexInfo& v : topology.vertices) {
    if (!v.name.empty()) ++uses[v.name];
  }
  for (const core::VertexInfo& v : topology.vertices) {
    if (v.id.empty() || v.name.empty() || v.name == v.id) continue;
    labels_[v.id] = uses[v.name] > 1 ? v.name + " (" + v.id + ")" : v.name;
    names_[v.id] = v.name;
  }
}

std::string VertexLabels::Of(const core::VertexId& id) const {
  auto it = labels_.find(id);
  return it == labels_.end() ? id : it->second;
}

std::string VertexLabels::Relabel(std::string_view text) const {
  if (labels_.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!IsWordChar(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsWordChar(text[end])) ++end;
    const std::string_view word = text.substr(i, end - i);
    auto it = labels_.find(word);
    if (it != labels_.end()) {
      out += it->second;
      // "<id> (<name>)", as the metric collector writes a vertex, becomes the label alone.
      const std::string suffix = " (" + names_.at(it->first) + ")";
      if (text.substr(end).starts_with(suffix)) end += suffix.size();
    } else {
      out.append(word);
    }
    i = end;
  }
  return out;
}

void VertexLabels::Relabel(core::flink::DecisionLog* log) const {
  if (labels_.empty()) return;
  for (auto& [stage, notes] : log->stages) {
    for (std::string& note : notes) note = Relabel(note);
  }
  for (auto& [id, decision] : log->vertices) {
    for (std::string& reason : decision.reasons) reason = Relabel(reason);
  }
}

void VertexLabels::RelabelStrings(Json* doc) const {
  if (labels_.empty()) return;
  if (doc->is_string()) {
    *doc = Relabel(doc->get_ref<const std::string&>());
  } else if (doc->is_array() || doc->is_object()) {
    for (Json& child : *doc) RelabelStrings(&child);
  }
}

}  // namespace trimtab::op
