/* SPDX-License-Identifier: MIT */
/* context_asm.c - C side of the hand-written switch: building the first
 * frame of a fresh context (see context_x86_64_sysv.S for its layout),
 * and where a suspended or interrupted context's stack ends. */
#include <stdint.h>
#include <ucontext.h>

#include "fiberpar.h"
#include "sched/fiber/context.h"

void fpar__ctx_trampoline(void);

const char fpar__ctx_impl_name[] = "x86_64-sysv";

uint64_t fpar__ctx_fpu_state(void) {
  uint32_t mxcsr;
  uint16_t fpucw;

  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpucw));
  return (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
}

/* MXCSR bits 0-5 are the sticky exception flags. */
int fpar__ctx_fpu_unchanged(uint64_t then) {
  return ((fpar__ctx_fpu_state() ^ then) & ~(uint64_t)0x3f) == 0;
}

void *fpar__ctx_make(void *stack_lo, void *stack_hi, fpar__ctx_entry entry,
                     void *arg, uint64_t fpu) {
  uintptr_t top = (uintptr_t)stack_hi & ~(uintptr_t)15;
  uint64_t *s = (uint64_t *)top;

  (void)stack_lo;
  /* After the switch's `ret` pops the trampoline address, rsp == top; the
   * trampoline's `call` then gives the entry function the rsp == 8 mod 16
   * that the ABI wants. */
  s[-1] = (uint64_t)(uintptr_t)fpar__ctx_trampoline + 1; /* past its nop */
  s[-2] = 0;                           /* rbp: ends the frame chain */
  s[-3] = 0;                           /* rbx */
  s[-4] = (uint64_t)(uintptr_t)entry;  /* r12 */
  s[-5] = (uint64_t)(uintptr_t)arg;    /* r13 */
  s[-6] = 0;                           /* r14 */
  s[-7] = 0;                           /* r15 */
  s[-8] = (uint64_t)(uintptr_t)&s[-8]; /* result: any readable word */
  s[-9] = fpu;                         /* MXCSR, x87 control word */
  return &s[-9];
}

int fpar__ctx_self_init(void **ctx) {
  *ctx = NULL;
  return 0;
}

void fpar__ctx_self_destroy(void **ctx) {
  *ctx = NULL;
}

/* A suspended context's handle is its stack pointer, with the saved
 * registers right above it. */
void *fpar__ctx_live_lo(void *ctx, void *stack_lo) {
  (void)stack_lo;
  return ctx;
}

void *fpar__ctx_signal_sp(const void *uctx) {
#if defined(__linux__)
  return (void *)(uintptr_t)((const ucontext_t *)uctx)
      ->uc_mcontext.gregs[REG_RSP];
#else
  (void)uctx;
  return NULL;
#endif
}
