// MPFR, which the exact samplers and the accountant's certified path use, keeps caches of
// constants (log 2, π, e^x tables) per thread. They live until the thread ends and are then lost,
// not freed: a thread that drew noise or calibrated (the parties of trees::InProcessGroup) calls
// this before it returns.
#ifndef RDPKIT_MECHANISMS_THREAD_CACHES_H_
#define RDPKIT_MECHANISMS_THREAD_CACHES_H_

namespace rdpkit::mechanisms {

// Frees the calling thread's MPFR caches (mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE)); MPFR fills
// them again when needed.
void ReleaseThreadCaches() noexcept;

}  // namespace rdpkit::mechanisms

#endif  // RDPKIT_MECHANISMS_THREAD_CACHES_H_
