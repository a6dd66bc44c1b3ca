#include "cluster/flink/slot_pool.h"

#include <algorithm>

namespace trimtab::sim::flink {

bool SlotPool::Register(const TaskManagerInfo& info) {
  if (Find(info.id)) return false;
  TaskManager tm;
  tm.info = info;
  tm.owners.assign(static_cast<size_t>(std::max(0, info.slots)), "");
  tm.idle_since = info.registered_at;
  tms_.push_back(std::move(tm));
  return true;
}

std::vector<std::string> SlotPool::Unregister(const std::string& id) {
  std::vector<std::string> jobs;
  for (auto it = tms_.begin(); it != tms_.end(); ++it) {
    if (it->info.id != id) continue;
    for (const std::string& o : it->owners) {
      if (!o.empty() && std::find(jobs.begin(), jobs.end(), o) == jobs.end()) jobs.push_back(o);
    }
    tms_.erase(it);
    break;
  }
  return jobs;
}

int SlotPool::total_slots() const {
  int n = 0;
  for (const TaskManager& tm : tms_) n += static_cast<int>(tm.owners.size());
  return n;
}

int SlotPool::free_slots() const {
  int n = 0;
  for (const TaskManager& tm : tms_) {
    for (const std::string& o : tm.owners) n += o.empty() ? 1 : 0;
  }
  return n;
}

int SlotPool::slots_of(const std::string& job_id) const {
  int n = 0;
  for (const TaskManager& tm : tms_) {
    for (const std::string& o : tm.owners) n += o == job_id ? 1 : 0;
  }
  return n;
}

bool SlotPool::Allocate(const std::string& job_id, int n, TimePoint now) {
  const int have = slots_of(job_id);
  if (have == n) return true;
  if (have > n) {  // give back the last ones
    int extra = have - n;
    for (auto tm = tms_.rbegin(); tm != tms_.rend() && extra > 0; ++tm) {
      for (auto o = tm->owners.rbegin(); o != tm->owners.rend() && extra > 0; ++o) {
        if (*o == job_id) {
          o->clear();
          --extra;
        }
      }
      if (std::all_of(tm->owners.begin(), tm->owners.end(), [](const std::string& s) { return s.empty(); })) {
        tm->idle_since = now;
      }
    }
    return true;
  }
  while (provisioner_ && free_slots() < n - have) {
    TaskManagerInfo info = provisioner_(++provisioned_, now);
    if (info.slots < 1 || !Register(info)) break;
  }
  if (free_slots() < n - have) return false;
  int missing = n - have;
  for (TaskManager& tm : tms_) {
    for (std::string& o : tm.owners) {
      if (missing > 0 && o.empty()) {
        o = job_id;
        --missing;
      }
    }
  }
  return true;
}

void SlotPool::Release(const std::string& job_id, TimePoint now) {
  for (TaskManager& tm : tms_) {
    bool had = false;
    for (std::string& o : tm.owners) {
      if (o == job_id) {
        o.clear();
        had = true;
      }
    }
    if (had && std::all_of(tm.owners.begin(), tm.owners.end(), [](const std::string& s) { return s.empty(); })) {
      tm.idle_since = now;
    }
  }
}

const TaskManagerInfo* SlotPool::SlotTaskManager(const std::string& job_id, int slot) const {
  int i = 0;
  for (const TaskManager& tm : tms_) {
    for (const std::string& o : tm.owners) {
      if (o != job_id) continue;
      if (i == slot) return &tm.info;
      ++i;
    }
  }
  return nullptr;
}

const SlotPool::TaskManager* SlotPool::Find(const std::string& id) const {
  for (const TaskManager& tm : tms_) {
    if (tm.info.id == id) return &tm;
  }
  return nullptr;
}

std::vector<std::string> SlotPool::IdleSince(TimePoint now, Duration timeout) const {
  std::vector<std::string> out;
  for (auto tm = tms_.rbegin(); tm != tms_.rend(); ++tm) {
    const bool idle = std::all_of(tm->owners.begin(), tm->owners.end(), [](const std::string& s) { return s.empty(); });
    if (idle && now - tm->idle_since >= timeout) out.push_back(tm->info.id);
  }
  return out;
}

}  // namespace trimtab::sim::flink
