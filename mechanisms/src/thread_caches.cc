#include "rdpkit/mechanisms/thread_caches.h"

#include <mpfr.h>

namespace rdpkit::mechanisms {

void ReleaseThreadCaches() noexcept { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace rdpkit::mechanisms
