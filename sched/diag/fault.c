/* SPDX-License-Identifier: MIT */
/* fault.c - stack-overflow detection on fiber guard pages (see fault.h). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sched/base/sync.h"
#include "sched/diag/fault.h"
#include "sched/fiber/context.h"
#include "sched/group/abort.h"
#include "sched/group/group.h"
#include "sched/group/race.h"

/* The action that was installed before ours: faults that are not fiber
 * stack overflows go to it.  Guarded by fpar__install_lock for writers;
 * the handler reads it. */
static struct sigaction fpar__old_segv;
static uv_mutex_t fpar__install_lock;
static int fpar__install_error;
static uv_once_t fpar__install_once = UV_ONCE_INIT;

/* The calling worker thread's alternate signal stack (an attribute of
 * the thread, like the stack itself). */
static __thread void *fpar__altstack;

/* Give sig to the action that was installed before ours, as if ours had
 * never been there. */
static void fpar__fault_chain(int sig, siginfo_t *info, void *uctx) {
  struct sigaction old = fpar__old_segv, dfl;
  /* Sent by kill(), sigqueue() or tgkill() rather than raised by a faulting
   * instruction, which would fault again when the handler returns. */
  int sent = info->si_code <= 0;

  if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    sigset_t mask = old.sa_mask;
    if (!(old.sa_flags & SA_NODEFER))
      sigaddset(&mask, sig);
    if (old.sa_flags & SA_RESETHAND) /* it runs once, as it asked */
      fpar__old_segv.sa_handler = SIG_DFL;
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    if (old.sa_flags & SA_SIGINFO)
      old.sa_sigaction(sig, info, uctx);
    else
      old.sa_handler(sig);
    return;
  }
  if (old.sa_handler == SIG_IGN && sent)
    return; /* ignored, as it would have been */
  /* The default action (a fault cannot be ignored: the kernel kills a
   * process that ignores one).  Reset it; a faulting instruction then
   * faults again when we return, and a sent signal is sent again, to be
   * delivered once the handler has returned and unblocked it. */
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  if (sent)
    raise(sig);
}

/* The slot the code running on w stands on: the runner's, outside fibers
 * (barrier-free loops, group functions). */
static size_t fpar__running_slot(const fpar__worker *w) {
  return w->run.fibers ? fpar__fiber_slot(&w->run, w->run.cur) : 0;
}

/* Whether a fault the kernel raised on w's thread is the running fiber's
 * stack overflow: the faulting address in its slot's guard, or its stack
 * pointer below its stack (a frame bigger than the guard jumped it).
 * Under racecheck a logical item's call runs on a stack of its identity's
 * pool (sched/group/race.h): then that stack is the running one. */
static int fpar__fault_is_overflow(const fpar__worker *w, const void *addr,
                                   const void *uctx) {
  const fpar__stack_pool *pool = &w->stacks;
  size_t running, slot;
  const char *sp = fpar__ctx_signal_sp(uctx);
  int in_guard;

  if (!fpar__race_item_stack(w, &pool, &running))
    running = fpar__running_slot(w);
  if (fpar__stack_pool_find(pool, addr, &slot, &in_guard) && in_guard &&
      slot == running)
    return 1;
  return sp != NULL && sp < fpar__stack_lo(pool, running);
}

static void fpar__fault_handler(int sig, siginfo_t *info, void *uctx) {
  fpar__worker *w = fpar__self;

  /* Only a fault raised by the kernel (not sent) while kernels run on a
   * worker can be theirs. */
  if (info->si_code > 0 && w != NULL && w->in_kernels &&
      fpar__fault_is_overflow(w, info->si_addr, uctx))
    fpar__stack_overflow(w, info->si_addr);
  fpar__fault_chain(sig, info, uctx);
}

/* Put our handler in front of whatever is installed now, unless it is
 * there already.  Called with fpar__install_lock held. */
static int fpar__fault_take_front(void) {
  struct sigaction sa, cur;

  if (sigaction(SIGSEGV, NULL, &cur) != 0)
    return FPAR_EINVAL;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fpar__fault_handler)
    return 0;
  fpar__old_segv = cur;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fpar__fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGSEGV, &sa, NULL) == 0 ? 0 : FPAR_EINVAL;
}

static void fpar__fault_install_once(void) {
  if (uv_mutex_init(&fpar__install_lock) != 0)
    fpar__install_error = FPAR_ENOMEM;
}

int fpar__fault_install(void) {
  int err;

  uv_once(&fpar__install_once, fpar__fault_install_once);
  if (fpar__install_error != 0)
    return fpar__install_error;
  uv_mutex_lock(&fpar__install_lock);
  err = fpar__fault_take_front();
  uv_mutex_unlock(&fpar__install_lock);
  return err;
}

/* Bytes of an alternate signal stack the library makes. */
static size_t fpar__altstack_bytes(void) {
  return (size_t)SIGSTKSZ > 64 * 1024 ? (size_t)SIGSTKSZ : 64 * 1024;
}

/* Map an alternate signal stack and make it the calling thread's.  Returns
 * it, or NULL. */
static void *fpar__altstack_install(void) {
  size_t size = fpar__altstack_bytes();
  stack_t ss;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (p == MAP_FAILED)
    return NULL;
  ss.ss_sp = p;
  ss.ss_size = size;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(p, size);
    return NULL;
  }
  return p;
}

int fpar__fault_thread_init(void) {
  if ((fpar__altstack = fpar__altstack_install()) == NULL)
    return FPAR_ENOMEM;
  return 0;
}

/* Host threads: the alternate signal stack the library gave the thread,
 * freed by the key's destructor when the thread exits. */
static pthread_key_t fpar__host_key;
static int fpar__host_key_error;
static pthread_once_t fpar__host_once = PTHREAD_ONCE_INIT;
static __thread int fpar__host_ready;

static void fpar__host_altstack_free(void *p) {
  stack_t cur, off;

  if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == p) {
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
  }
  munmap(p, fpar__altstack_bytes());
}

static void fpar__host_key_create(void) {
  fpar__host_key_error =
      pthread_key_create(&fpar__host_key, fpar__host_altstack_free);
}

int fpar__fault_host_init(void) {
  stack_t cur;
  void *p;

  if (fpar__host_ready)
    return 0;
  pthread_once(&fpar__host_once, fpar__host_key_create);
  if (fpar__host_key_error != 0 || sigaltstack(NULL, &cur) != 0)
    return FPAR_ENOMEM;
  if (!(cur.ss_flags & SS_DISABLE)) {
    fpar__host_ready = 1; /* the thread's own serves */
    return 0;
  }
  if ((p = fpar__altstack_install()) == NULL)
    return FPAR_ENOMEM;
  if (pthread_setspecific(fpar__host_key, p) != 0) {
    fpar__host_altstack_free(p);
    return FPAR_ENOMEM;
  }
  fpar__host_ready = 1;
  return 0;
}

void fpar__fault_thread_destroy(void) {
  stack_t ss;

  if (fpar__altstack == NULL)
    return;
  memset(&ss, 0, sizeof ss);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, NULL);
  munmap(fpar__altstack, fpar__altstack_bytes());
  fpar__altstack = NULL;
}

void fpar__fault_after_signal(void) {
  sigset_t set;

  sigemptyset(&set);
  sigaddset(&set, SIGSEGV);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
