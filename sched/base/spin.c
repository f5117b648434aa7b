/* SPDX-License-Identifier: MIT */
/* spin.c - spinning for a budget of time (see spin.h). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "sched/base/clock.h"
#include "sched/base/spin.h"

/* Pausing between two reads of the clock, and the gap between reads
 * beyond which the thread was descheduled (not spinning) in between. */
#define FPAR__SPIN_READ_NS 250u
#define FPAR__SPIN_GAP_NS 20000u

/* PAUSEs between two reads of the clock; 0 until calibrated. */
static atomic_uint fpar__spin_pauses;
static pthread_once_t fpar__spin_once = PTHREAD_ONCE_INIT;

/* One PAUSE (x86) or YIELD (AArch64) instruction. */
static void fpar__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* The fastest of a few timed runs of 64 PAUSEs: preemption only makes a
 * run slower. */
static void fpar__spin_measure(void) {
  uint64_t best = UINT64_MAX;
  unsigned run, i, per;

  for (run = 0; run < 4; run++) {
    uint64_t t0 = fpar__now_ns(), t;
    for (i = 0; i < 64; i++)
      fpar__cpu_relax();
    t = fpar__now_ns() - t0;
    if (t < best)
      best = t;
  }
  per = best >= 64 * FPAR__SPIN_READ_NS ? 1
        : best == 0                     ? 256
                    : (unsigned)(64 * FPAR__SPIN_READ_NS / best);
  atomic_store_explicit(&fpar__spin_pauses, per > 256 ? 256 : per,
                        memory_order_relaxed);
}

void fpar__spin_calibrate(void) {
  pthread_once(&fpar__spin_once, fpar__spin_measure);
}

int fpar__spin_step(fpar__spin *sp, uint64_t budget_ns, uint64_t yield_ns) {
  unsigned per = atomic_load_explicit(&fpar__spin_pauses, memory_order_relaxed);
  uint64_t now;

  if (budget_ns == 0)
    return 0;
  fpar__cpu_relax();
  if (++sp->pauses < per)
    return 1;
  sp->pauses = 0;
  now = fpar__now_ns();
  if (sp->last != 0 && now - sp->last < FPAR__SPIN_GAP_NS)
    sp->spent += now - sp->last;
  sp->last = now;
  if (sp->spent >= budget_ns)
    return 0;
  if (sp->spent - sp->yielded >= yield_ns) {
    sp->yielded = sp->spent;
    sched_yield();
  }
  return 1;
}
