// SlottedMap: a map from metric names to values in which a fixed list of well-known names have
// fixed slots, and any other name is kept by name beside them.
//
// The autoscaler stores and reads the same twenty-odd built-in metric names for every vertex of
// every sample and every cycle. In a std::map<std::string, ...> each of those is a tree node
// (and, past 15 characters, a heap-allocated key) built, searched by comparing strings, and freed
// again every cycle. Here a built-in name is an index into an array: storing one allocates
// nothing, and a name passed as the kMetric* constant itself is found by comparing pointers.
// Names outside the list (custom metrics) behave as in a std::map.
//
// `kNames` must be sorted and free of duplicates (checked at compile time), so that ForEach
// visits every present name, slotted or not, in name order, as iterating a std::map would.
//
// Thread-safety: a plain value.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace trimtab::core {

template <typename Value, const auto& kNames>
class SlottedMap {
 public:
  static constexpr size_t kSlots = std::size(kNames);
  static_assert(std::ranges::adjacent_find(kNames, std::ranges::greater_equal{}) ==
                    std::end(kNames),
                "slot names must be sorted and unique");

  SlottedMap() = default;
  // {{"LOAD", v}, {"LAG", w}}: as operator[] for each pair.
  SlottedMap(std::initializer_list<std::pair<std::string_view, Value>> values) {
    for (const auto& [name, value] : values) (*this)[name] = value;
  }

  // The slot of `name`, or kSlots when it has none.
  static size_t SlotOf(std::string_view name) {
    // A name passed as one of the kMetric* constants points at the very characters in kNames.
    for (size_t i = 0; i < kSlots; ++i) {
      if (kNames[i].data() == name.data() && kNames[i].size() == name.size()) return i;
    }
    const auto* it = std::lower_bound(std::begin(kNames), std::end(kNames), name);
    return it != std::end(kNames) && *it == name ? static_cast<size_t>(it - std::begin(kNames))
                                                 : kSlots;
  }
  static std::string_view SlotName(size_t slot) { return kNames[slot]; }

  // By slot (REQUIRES: slot < kSlots): nullptr when absent.
  const Value* FindSlot(size_t slot) const { return present_[slot] ? &slots_[slot] : nullptr; }
  Value& Slot(size_t slot) {
    if (!present_[slot]) {
      present_.set(slot);
      slots_[slot] = Value{};
    }
    return slots_[slot];
  }
  void EraseSlot(size_t slot) { present_.reset(slot); }

  // By name, as std::map's find / operator[] / at / count / erase.
  const Value* Find(std::string_view name) const {
    if (const size_t slot = SlotOf(name); slot < kSlots) return FindSlot(slot);
    auto it = others_.find(name);
    return it == others_.end() ? nullptr : &it->second;
  }
  Value* Find(std::string_view name) {
    return const_cast<Value*>(std::as_const(*this).Find(name));
  }
  Value& operator[](std::string_view name) {
    if (const size_t slot = SlotOf(name); slot < kSlots) return Slot(slot);
    auto it = others_.lower_bound(name);
    if (it == others_.end() || it->first != name) it = others_.emplace_hint(it, name, Value{});
    return it->second;
  }
  const Value& at(std::string_view name) const {
    const Value* v = Find(name);
    if (!v) throw std::out_of_range("no metric named " + std::string(name));
    return *v;
  }
  size_t count(std::string_view name) const { return Find(name) ? 1 : 0; }
  size_t erase(std::string_view name) {
    if (const size_t slot = SlotOf(name); slot < kSlots) {
      const size_t had = present_[slot] ? 1 : 0;
      EraseSlot(slot);
      return had;
    }
    if (auto it = others_.find(name); it != others_.end()) {
      others_.erase(it);
      return 1;
    }
    return 0;
  }

  bool empty() const { return present_.none() && others_.empty(); }
  size_t size() const { return present_.count() + others_.size(); }

  // Calls f(name, value) for every present name, in name order.
  template <typename F>
  void ForEach(F&& f) const {
    // Both sequences are sorted: merge them.
    auto other = others_.begin();
    for (size_t i = 0; i < kSlots; ++i) {
      if (!present_[i]) continue;
      for (; other != others_.end() && std::string_view(other->first) < kNames[i]; ++other) {
        f(std::string_view(other->first), other->second);
      }
      f(kNames[i], slots_[i]);
    }
    for (; other != others_.end(); ++other) f(std::string_view(other->first), other->second);
  }

  friend bool operator==(const SlottedMap& a, const SlottedMap& b) {
    if (a.present_ != b.present_ || a.others_ != b.others_) return false;
    for (size_t i = 0; i < kSlots; ++i) {
      if (a.present_[i] && !(a.slots_[i] == b.slots_[i])) return false;
    }
    return true;
  }

 private:
  std::array<Value, kSlots> slots_{};  // meaningful where present_ is set
  std::bitset<kSlots> present_;
  std::map<std::string, Value, std::less<>> others_;  // names without a slot
};

}  // namespace trimtab::core
