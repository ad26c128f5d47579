#include "serq-sim/engine/choose_copy.h"

#include <algorithm>
#include <iterator>

namespace serq::sim {
namespace {

// The stage state functions a copy holds, in its order.
constexpr Function kStageFunctions[] = {Function::kQueue,   Function::kBusy,
                                        Function::kRunning, Function::kWaiting,
                                        Function::kWork,    Function::kPrice};

int StageIndex(Function f) {
  const Function* end = std::end(kStageFunctions);
  const Function* at = std::find(std::begin(kStageFunctions), end, f);
  return at == end ? -1 : static_cast<int>(at - std::begin(kStageFunctions));
}

}  // namespace

ChooseCopy::ChooseCopy(const ChooseSite& site, StateView* live)
    : site_(site),
      live_(live),
      dt_(std::max<Ticks>(1, ToTicks(site.every))),
      stations_(site.stations.size() * kStageValues, 0),
      pools_(site.pools.size() * kPoolValues, 0) {}

int ChooseCopy::Slot(const std::vector<uint32_t>& elements, uint32_t element) {
  auto it = std::lower_bound(elements.begin(), elements.end(), element);
  return it != elements.end() && *it == element ? static_cast<int>(it - elements.begin()) : -1;
}

void ChooseCopy::Refresh(Ticks now) {
  for (size_t s = 0; s < site_.stations.size(); ++s) {
    for (int f = 0; f < kStageValues; ++f) {
      stations_[s * kStageValues + f] = live_->StageState(kStageFunctions[f], site_.stations[s]);
    }
  }
  for (size_t p = 0; p < site_.pools.size(); ++p) {
    pools_[p * kPoolValues] = live_->PoolState(Function::kUsed, site_.pools[p]);
    pools_[p * kPoolValues + 1] = live_->PoolState(Function::kFree, site_.pools[p]);
  }
  // The latest multiple of DT not after `now` is the copy's instant; the
  // next refresh is the multiple after it.
  next_ = (now / dt_ + 1) * dt_;
}

void ChooseCopy::Chose(uint32_t index) {
  if (site_.pool) return;
  int slot = Slot(site_.stations, site_.base + index);
  if (slot < 0) return;
  stations_[slot * kStageValues + StageIndex(Function::kQueue)] += 1;
  stations_[slot * kStageValues + StageIndex(Function::kWaiting)] += 1;
}

double ChooseCopy::StageState(Function f, uint32_t station) {
  int slot = Slot(site_.stations, station);
  int i = StageIndex(f);
  if (slot < 0 || i < 0) return live_->StageState(f, station);
  return stations_[slot * kStageValues + i];
}

double ChooseCopy::PoolState(Function f, uint32_t pool) {
  int slot = Slot(site_.pools, pool);
  if (slot < 0 || (f != Function::kUsed && f != Function::kFree)) return live_->PoolState(f, pool);
  return pools_[slot * kPoolValues + (f == Function::kUsed ? 0 : 1)];
}

}  // namespace serq::sim
