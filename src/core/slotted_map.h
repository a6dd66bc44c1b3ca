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
#include <bit>
#include <bitset>
#include <cstdint>
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
    // A name passed as one of the kMetric* constants points at the very characters in kNames:
    // found by its address in a small hash table, without reading a character.
    static const AddressTable by_address;
    if (const size_t slot = by_address.Find(name); slot < kSlots) return slot;
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
  // kNames' addresses -> slots: open addressing over a power-of-two table at most a quarter full.
  class AddressTable {
   public:
    AddressTable() {
      for (size_t i = 0; i < kSlots; ++i) {
        size_t at = Hash(kNames[i].data());
        while (entries_[at].address) at = (at + 1) % kSize;
        entries_[at] = {kNames[i].data(), i};
      }
    }
    // The slot whose name has `name`'s address and length, or kSlots.
    size_t Find(std::string_view name) const {
      for (size_t at = Hash(name.data());; at = (at + 1) % kSize) {
        const Entry& e = entries_[at];
        if (!e.address) return kSlots;
        if (e.address == name.data()) return kNames[e.slot].size() == name.size() ? e.slot : kSlots;
      }
    }

   private:
    static constexpr size_t kSize = std::bit_ceil(4 * kSlots);
    static size_t Hash(const char* p) {
      // Fibonacci hashing of the address; the top bits are the best mixed.
      const uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15u;
      return static_cast<size_t>(x >> (64 - std::countr_zero(kSize)));
    }
    struct Entry {
      const char* address = nullptr;
      size_t slot = 0;
    };
    std::array<Entry, kSize> entries_{};
  };

  std::array<Value, kSlots> slots_{};  // meaningful where present_ is set
  std::bitset<kSlots> present_;
  std::map<std::string, Value, std::less<>> others_;  // names without a slot
};

}  // namespace trimtab::core
