/* SPDX-License-Identifier: MIT */
/* context.h - the tiny internal interface to user-level context switching.
 *
 * A context is one pointer-sized handle.  Which implementation backs it is
 * chosen by file in Makefile.am: context_x86_64_sysv.S (+ context_asm.c) for
 * the hand-written switch, context_ucontext.c for the portable fallback.
 *
 * A context that was made with fpar__ctx_make() owns storage on its stack.
 * A thread's own stack needs storage from fpar__ctx_self_init() before it
 * can be saved into.  The handle of a saved context is only meaningful to
 * fpar__ctx_switch().
 */
/* Room fiber of sched/ (docs/layout.md): the context switch (one file per
 * ABI), stacks and their guards (one file per OS), sanitizer annotations.
 * The rooms, in the order they may include one another: base, machine,
 * fiber, group, diag, exec; a room includes its own headers and those of
 * the rooms before it, never one after it (tests/test_layout.sh checks).
 * fiber includes base and machine; group, diag, exec and lib/ include it. */
#ifndef FPAR_SCHED_FIBER_CONTEXT_H
#define FPAR_SCHED_FIBER_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

/* Entry point of a fresh context.  It must never return: a context ends by
 * switching away for the last time. */
typedef void (*fpar__ctx_entry)(void *arg);

/* The calling thread's floating-point control state, as a fresh context
 * starts with it (reading it is slow: take it once for many contexts). */
uint64_t fpar__ctx_fpu_state(void);

/* Whether the calling thread's floating-point control settings are those
 * of `then`, a value of fpar__ctx_fpu_state() (status flags aside; where
 * contexts switch through the C library, the rounding direction only):
 * one call, as it runs after every group. */
int fpar__ctx_fpu_unchanged(uint64_t then);

/* Prepare a context on [stack_lo, stack_hi) that calls entry(arg) when
 * first switched to, with floating-point control state fpu (from
 * fpar__ctx_fpu_state).  Stack frames start at stack_hi (16-byte aligned by
 * the implementation).  Returns the handle. */
void *fpar__ctx_make(void *stack_lo, void *stack_hi, fpar__ctx_entry entry,
                     void *arg, uint64_t fpu);

/* Give *ctx the storage a thread's own stack needs to be saved into.
 * Returns 0 or FPAR_ENOMEM. */
int fpar__ctx_self_init(void **ctx);

/* Release what fpar__ctx_self_init() gave. */
void fpar__ctx_self_destroy(void **ctx);

/* Save the running context into *save and resume load.  Callee-saved
 * registers, the stack pointer and the floating-point control state (MXCSR
 * control bits and x87 control word on x86-64) travel with the context. */
void fpar__ctx_switch(void **save, void *load);

/* The same switch for a caller whose answer is ready when it is resumed:
 * it returns the 64 bits at result (aligned or not) as they are at that
 * moment (0 when result is NULL), so the
 * caller can end with `return fpar__ctx_switch_result(...)`, a tail call that
 * leaves no frame between it and its own caller (see context_x86_64_sysv.S for
 * why that matters).  The _u32, _f32 and _f64 forms return the same bits as a
 * uint32_t or a float (the low 32) or a double: a caller can only tail-call a
 * function of its own return type. */
uint64_t fpar__ctx_switch_result(void **save, void *load, const void *result);
uint32_t fpar__ctx_switch_u32(void **save, void *load, const void *result);
float fpar__ctx_switch_f32(void **save, void *load, const void *result);
double fpar__ctx_switch_f64(void **save, void *load, const void *result);

/* The same switches for contexts that share one floating-point
 * environment: the FPU control words stay as they are.  A context saved
 * by one family of routines must be resumed by the same family. */
void fpar__ctx_switch_shared_fpenv(void **save, void *load);
uint64_t fpar__ctx_switch_shared_fpenv_result(void **save, void *load,
                                              const void *result);
uint32_t fpar__ctx_switch_shared_fpenv_u32(void **save, void *load,
                                           const void *result);
float fpar__ctx_switch_shared_fpenv_f32(void **save, void *load,
                                        const void *result);
double fpar__ctx_switch_shared_fpenv_f64(void **save, void *load,
                                         const void *result);

/* The lowest byte of its stack that a context suspended by a switch (or
 * made and not yet run) on a stack starting at stack_lo still uses: what
 * must be kept to resume it.  Never below stack_lo. */
void *fpar__ctx_live_lo(void *ctx, void *stack_lo);

/* The stack pointer of the code a signal interrupted, from the handler's
 * third argument; NULL when the implementation cannot tell. */
void *fpar__ctx_signal_sp(const void *uctx);

/* The implementation's name, for diagnostics ("x86_64-sysv" or
 * "ucontext"). */
extern const char fpar__ctx_impl_name[];

#endif
