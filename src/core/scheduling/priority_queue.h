// PriorityQueue: a binary heap of ids with a "less" function, popping the least first — the
// same sift-up/sift-down as Go's container/heap, which Volcano's util.PriorityQueue wraps, so
// that orders whose keys change while an item waits come out as in Volcano.
//
// Thread-safety: one thread.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace trimtab::core::scheduling {

class PriorityQueue {
 public:
  using Less = std::function<bool(int, int)>;
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}

  bool Empty() const { return items_.empty(); }
  size_t Size() const { return items_.size(); }
  void Push(int item) {
    items_.push_back(item);
    Up(static_cast<int>(items_.size()) - 1);
  }
  // REQUIRES: !Empty().
  int Pop() {
    const int n = static_cast<int>(items_.size()) - 1;
    std::swap(items_[0], items_[n]);
    Down(0, n);
    int item = items_.back();
    items_.pop_back();
    return item;
  }

 private:
  void Up(int j) {
    while (true) {
      int i = (j - 1) / 2;
      if (i == j || !less_(items_[j], items_[i])) break;
      std::swap(items_[i], items_[j]);
      j = i;
    }
  }
  void Down(int i0, int n) {
    int i = i0;
    while (true) {
      int j1 = 2 * i + 1;
      if (j1 >= n || j1 < 0) break;
      int j = j1;
      if (int j2 = j1 + 1; j2 < n && less_(items_[j2], items_[j1])) j = j2;
      if (!less_(items_[j], items_[i])) break;
      std::swap(items_[i], items_[j]);
      i = j;
    }
  }

  Less less_;
  std::vector<int> items_;
};

}  // namespace trimtab::core::scheduling
