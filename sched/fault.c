/* fault.c - stack-overflow detection on fiber guard pages (see fault.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sched/fault.h"
#include "sched/sync.h"

static struct sigaction fpar__old_segv, fpar__old_bus;
static int fpar__install_error;
static uv_once_t fpar__install_once = UV_ONCE_INIT;

static void fpar__fault_chain(int sig, siginfo_t *info, void *uctx) {
  const struct sigaction *old =
      sig == SIGSEGV ? &fpar__old_segv : &fpar__old_bus;

  if (old->sa_flags & SA_SIGINFO) {
    old->sa_sigaction(sig, info, uctx);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
  } else {
    /* Returning re-executes the faulting instruction under the default
     * action, which terminates with the usual core dump. */
    signal(sig, SIG_DFL);
  }
}

static void fpar__fault_handler(int sig, siginfo_t *info, void *uctx) {
  fpar__worker *w = fpar__self;
  size_t index;

  if (w != NULL && w->launch != NULL &&
      fpar__stack_pool_guard_hit(&w->stacks, info->si_addr, &index)) {
    w->fault.code = FPAR_ESTACKOVERFLOW;
    /* Stack i serves work-item i, except that a barrier-free group runs
     * all its work-items on the runner's stack 0. */
    w->fault.item = index == 0 && !w->run.fibers && w->run.loop_item != NULL
                        ? fpar_local_linear_id(w->run.loop_item)
                        : index;
    w->fault.from_signal = 1;
    w->fault.addr = info->si_addr;
    w->fault.detail[0] = '\0';
    fpar__worker_to_sched(w);
  }
  fpar__fault_chain(sig, info, uctx);
}

static void fpar__fault_install_once(void) {
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fpar__fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &fpar__old_segv) != 0 ||
      sigaction(SIGBUS, &sa, &fpar__old_bus) != 0)
    fpar__install_error = FPAR_EINVAL;
}

int fpar__fault_install(void) {
  uv_once(&fpar__install_once, fpar__fault_install_once);
  return fpar__install_error;
}

int fpar__fault_thread_init(fpar__worker *w) {
  size_t size = 64 * 1024;
  stack_t ss;
  void *p;

  if (size < (size_t)SIGSTKSZ)
    size = (size_t)SIGSTKSZ;
  p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
           0);
  if (p == MAP_FAILED)
    return FPAR_ENOMEM;
  ss.ss_sp = p;
  ss.ss_size = size;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(p, size);
    return FPAR_ENOMEM;
  }
  w->altstack = p;
  w->altstack_size = size;
  return 0;
}

void fpar__fault_thread_destroy(fpar__worker *w) {
  stack_t ss;

  if (w->altstack == NULL)
    return;
  memset(&ss, 0, sizeof ss);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, NULL);
  munmap(w->altstack, w->altstack_size);
  w->altstack = NULL;
}

void fpar__fault_after_signal(void) {
  sigset_t set;

  sigemptyset(&set);
  sigaddset(&set, SIGSEGV);
  sigaddset(&set, SIGBUS);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
