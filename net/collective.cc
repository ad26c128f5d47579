#include "net/collective.h"

#include <cmath>
#include <limits>

namespace serq::net {

Ring RingOf(Collective collective, double gpus) {
  const double n = gpus;
  if (collective == Collective::kAllReduce) return {2 * (n - 1), 2 * (n - 1) / n};
  return {n - 1, (n - 1) / n};
}

bool InDomain(double gpus, double bytes, double bandwidth, double latency) {
  return gpus >= 1 && gpus <= 1048576 && gpus == std::floor(gpus) && std::isfinite(bytes) &&
         bytes >= 0 && bandwidth > 0 && std::isfinite(latency) && latency >= 0;
}

double Seconds(Collective collective, double gpus, double bytes, double bandwidth,
               double latency) {
  if (!InDomain(gpus, bytes, bandwidth, latency)) return std::numeric_limits<double>::quiet_NaN();
  if (gpus == 1) return 0;
  const Ring ring = RingOf(collective, gpus);
  // inf bandwidth: no transfer time (bytes / inf is 0, and 0 x inf is not
  // reached: bytes is finite).
  return ring.steps * latency + ring.factor * bytes / bandwidth;
}

}  // namespace serq::net
