/* SPDX-License-Identifier: MIT */
/* context_ucontext.c - portable context switch on getcontext/makecontext/
 * swapcontext, for machines without a hand-written switch (and selectable
 * with ./configure --with-context=ucontext).  swapcontext makes a
 * sigprocmask system call per switch: correct everywhere, slow everywhere.
 *
 * A made context keeps its ucontext_t at the top of its own stack; the
 * handle is a pointer to that record.
 */
#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "fiberpar.h"
#include "sched/fiber/context.h"

const char fpar__ctx_impl_name[] = "ucontext";

typedef struct fpar__uctx {
  ucontext_t uc;
  fpar__ctx_entry entry;
  void *arg;
} fpar__uctx;

/* TSan-unchecked: a fresh context reads its record, which the context
 * that made it wrote, before the entry can tell TSan it is the runtime's
 * (fpar__ctx_switch). */
#if defined(__SANITIZE_THREAD__)
#define FPAR__UCTX_UNCHECKED __attribute__((no_sanitize_thread))
#else
#define FPAR__UCTX_UNCHECKED
#endif

/* makecontext passes int arguments only: the record's address travels as
 * two 32-bit halves. */
static FPAR__UCTX_UNCHECKED void fpar__uctx_start(unsigned hi, unsigned lo) {
  fpar__uctx *c = (fpar__uctx *)(((uintptr_t)hi << 32) | (uintptr_t)lo);

  c->entry(c->arg);
  abort(); /* An entry function must switch away instead of returning. */
}

/* getcontext records the floating-point state itself; the rounding
 * direction stands for it where it is compared. */
uint64_t fpar__ctx_fpu_state(void) {
  return (uint64_t)(unsigned)fegetround();
}

int fpar__ctx_fpu_unchanged(uint64_t then) {
  return fpar__ctx_fpu_state() == then;
}

void *fpar__ctx_make(void *stack_lo, void *stack_hi, fpar__ctx_entry entry,
                     void *arg, uint64_t fpu) {
  uintptr_t rec = ((uintptr_t)stack_hi - sizeof(fpar__uctx)) & ~(uintptr_t)63;
  fpar__uctx *c = (fpar__uctx *)rec;
  uintptr_t p = (uintptr_t)c;

  (void)fpu;
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack_lo;
  c->uc.uc_stack.ss_size = rec - (uintptr_t)stack_lo;
  c->uc.uc_link = NULL;
  c->entry = entry;
  c->arg = arg;
  makecontext(&c->uc, (void (*)(void))fpar__uctx_start, 2, (unsigned)(p >> 32),
              (unsigned)(p & 0xffffffffu));
  return c;
}

int fpar__ctx_self_init(void **ctx) {
  fpar__uctx *c = calloc(1, sizeof *c);

  if (c == NULL)
    return FPAR_ENOMEM;
  *ctx = c;
  return 0;
}

void fpar__ctx_self_destroy(void **ctx) {
  free(*ctx);
  *ctx = NULL;
}

/* TSan already counts the code here as the next context's (the switch of
 * TSan fiber comes first), which does not own *save: not checked. */
FPAR__UCTX_UNCHECKED void fpar__ctx_switch(void **save, void *load) {
  swapcontext(&((fpar__uctx *)*save)->uc, &((fpar__uctx *)load)->uc);
}

/* The caller is the one resumed here: it reads its own result, which
 * need not be aligned (a collective's 32-bit slot). */
uint64_t fpar__ctx_switch_result(void **save, void *load, const void *result) {
  uint64_t bits = 0;

  fpar__ctx_switch(save, load);
  if (result != NULL)
    memcpy(&bits, result, sizeof bits);
  return bits;
}

uint32_t fpar__ctx_switch_u32(void **save, void *load, const void *result) {
  return (uint32_t)fpar__ctx_switch_result(save, load, result);
}

float fpar__ctx_switch_f32(void **save, void *load, const void *result) {
  uint32_t low = (uint32_t)fpar__ctx_switch_result(save, load, result);
  float f;

  memcpy(&f, &low, sizeof f);
  return f;
}

double fpar__ctx_switch_f64(void **save, void *load, const void *result) {
  uint64_t bits = fpar__ctx_switch_result(save, load, result);
  double d;

  memcpy(&d, &bits, sizeof d);
  return d;
}

/* swapcontext always carries the floating-point environment. */
void fpar__ctx_switch_shared_fpenv(void **save, void *load) {
  fpar__ctx_switch(save, load);
}

uint64_t fpar__ctx_switch_shared_fpenv_result(void **save, void *load,
                                              const void *result) {
  return fpar__ctx_switch_result(save, load, result);
}

uint32_t fpar__ctx_switch_shared_fpenv_u32(void **save, void *load,
                                           const void *result) {
  return fpar__ctx_switch_u32(save, load, result);
}

float fpar__ctx_switch_shared_fpenv_f32(void **save, void *load,
                                        const void *result) {
  return fpar__ctx_switch_f32(save, load, result);
}

double fpar__ctx_switch_shared_fpenv_f64(void **save, void *load,
                                         const void *result) {
  return fpar__ctx_switch_f64(save, load, result);
}

/* swapcontext's frames lie somewhere below the record: keep the whole
 * stack. */
void *fpar__ctx_live_lo(void *ctx, void *stack_lo) {
  (void)ctx;
  return stack_lo;
}

/* The layout of the signal context is machine-specific. */
void *fpar__ctx_signal_sp(const void *uctx) {
  (void)uctx;
  return NULL;
}
