// The event queue is header-only (inlined into the engine's loop); this
// file keeps the library's source list stable.
#include "serq-sim/events/event_queue.h"
