// Descriptor scheduling with automatic dependencies: see schedule.hpp.
#include "schedule.hpp"

#include <algorithm>

namespace weft::detail {

const Scheduler::Rec* Scheduler::find(uint64_t index) const {
  for (const Rec& r : win_) {
    if (r.index == index) return &r;
  }
  return nullptr;
}

const Scheduler::Rec* Scheduler::prev_same(Eng e) const {
  for (auto it = win_.rbegin(); it != win_.rend(); ++it) {
    if (it->eng == e) return &*it;
  }
  return nullptr;
}

size_t Scheduler::emit(Descriptor d, Eng e, std::vector<Span> rd, std::vector<Span> wr) {
  const uint64_t i = prog_.size();
  // Descriptors further back than inflight - 1 have retired when this one is in flight.
  const uint64_t oldest = i >= inflight_ - 1 ? i - (inflight_ - 1) : 0;
  while (!win_.empty() && win_.front().index < oldest) win_.pop_front();

  auto conflicts = [&](const Rec& r) {
    for (const Span& a : rd) {
      for (const Span& b : r.wr) {
        if (a.overlaps(b)) return true;  // RAW
      }
    }
    for (const Span& a : wr) {
      for (const Span& b : r.rd) {
        if (a.overlaps(b)) return true;  // WAR
      }
      for (const Span& b : r.wr) {
        if (a.overlaps(b)) return true;  // WAW
      }
    }
    return false;
  };

  const Rec* prev = prev_same(e);
  std::set<uint64_t> started = prev ? prev->started : std::set<uint64_t>{};
  std::vector<uint64_t> need;
  for (const Rec& r : win_) {
    if (r.eng != e && conflicts(r) && !started.count(r.index)) need.push_back(r.index);
  }
  // Drop a hazard that another one implies.
  std::vector<uint64_t> keep;
  for (uint64_t n : need) {
    bool implied = false;
    for (uint64_t m : need) {
      if (m != n && find(m)->complete.count(n)) implied = true;
    }
    if (!implied) keep.push_back(n);
  }
  uint8_t flags = 0;
  while (keep.size() > 2) {
    // More than two: wait for every earlier descriptor of the engine with the most hazards.
    int count[3] = {0, 0, 0};
    for (uint64_t n : keep) ++count[static_cast<int>(find(n)->eng)];
    const int eng = static_cast<int>(std::max_element(count, count + 3) - count);
    flags |= eng == 0 ? kFlagWaitLoad : eng == 1 ? kFlagWaitCompute : kFlagWaitStore;
    if (const Rec* last = prev_same(static_cast<Eng>(eng))) {
      started.insert(last->complete.begin(), last->complete.end());
    }
    std::erase_if(keep, [&](uint64_t n) { return static_cast<int>(find(n)->eng) == eng; });
    ++waits_;
  }
  for (size_t s = 0; s < keep.size(); ++s) {
    d.with_dep(static_cast<int>(s), static_cast<uint8_t>(i - keep[s]));
    const Rec* r = find(keep[s]);
    started.insert(r->complete.begin(), r->complete.end());
  }
  if (flags) d.with_flags(flags);

  Rec rec{i, e, std::move(rd), std::move(wr), std::move(started), {}};
  std::erase_if(rec.started, [&](uint64_t x) { return x < oldest; });
  rec.complete = rec.started;
  rec.complete.insert(i);
  if (prev) rec.complete.insert(prev->complete.begin(), prev->complete.end());
  std::erase_if(rec.complete, [&](uint64_t x) { return x < oldest; });
  win_.push_back(std::move(rec));
  prog_.push_back(d);
  return i;
}

}  // namespace weft::detail
