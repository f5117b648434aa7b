/* sanitizer.h - telling AddressSanitizer about fiber switches.
 *
 * ASan tracks one stack per thread; a fiber switch must announce the stack
 * it goes to (start) and confirm arrival on it (finish), or ASan misreads
 * frames on fiber stacks and corrupts its fake-stack bookkeeping.  Stacks
 * of abandoned fibers keep their frames' poison and are cleaned before
 * reuse.  Everything here compiles to nothing in builds without ASan.
 */
#ifndef FPAR_SCHED_SANITIZER_H
#define FPAR_SCHED_SANITIZER_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define FPAR__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FPAR__ASAN 1
#endif
#endif

#ifdef FPAR__ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* About to switch to the stack [lo, lo + size).  fake receives the current
 * context's fake stack; NULL when the current context never resumes. */
static inline void fpar__san_switch_out(void **fake, const void *lo,
                                        size_t size) {
#ifdef FPAR__ASAN
  __sanitizer_start_switch_fiber(fake, lo, size);
#else
  (void)fake, (void)lo, (void)size;
#endif
}

/* Arrived on a stack: fake is what fpar__san_switch_out stored for this
 * context (NULL for a fresh one); *from_lo and *from_size, when not NULL,
 * receive the stack we came from. */
static inline void fpar__san_switch_in(void *fake, const void **from_lo,
                                       size_t *from_size) {
#ifdef FPAR__ASAN
  __sanitizer_finish_switch_fiber(fake, from_lo, from_size);
#else
  (void)fake, (void)from_lo, (void)from_size;
#endif
}

/* Clear the poison that frames of an abandoned fiber left on a stack. */
static inline void fpar__san_clean_stack(void *lo, size_t size) {
#ifdef FPAR__ASAN
  ASAN_UNPOISON_MEMORY_REGION(lo, size);
#else
  (void)lo, (void)size;
#endif
}

#endif
