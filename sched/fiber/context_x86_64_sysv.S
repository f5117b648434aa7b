/* SPDX-License-Identifier: MIT */
/* context_x86_64_sysv.S - user-level context switch for the x86-64 System V
 * ABI.
 *
 *   void fpar__ctx_switch(void **save, void *load);
 *   uint64_t fpar__ctx_switch_result(void **save, void *load,
 *                                    const void *result);
 *   (and _u32, _f32, _f64 in place of _result: the same code, typed
 *   for C), and all of them with _shared_fpenv after "switch".
 *
 * A switch is entered through an ordinary call, so only what the ABI makes
 * callee-saved has to travel: rbx, rbp, r12-r15, rsp, the MXCSR control
 * bits and the x87 control word.  The switch pushes them on the current
 * stack, stores rsp in *save, loads rsp from load and pops the other
 * context's values.  The FPU control words are only reloaded when they
 * differ from the current ones (ldmxcsr and fldcw are slow; the compare is
 * not); the MXCSR status flags (bits 0-5) stay with the thread.
 *
 * The _shared_fpenv routines leave the FPU control words alone (their slot
 * is kept but not written): for contexts that share one floating-point
 * environment.  Reading MXCSR (stmxcsr) is microcoded and costs about 4 ns
 * on Zen 3, half the price of a whole barrier.  A context saved by one
 * family must be resumed by the same one.
 *
 * What a switch returns: each saved frame holds the address `result` the
 * suspended context gave (the plain routines give NULL), and the resumed
 * context's switch returns the 64 bits found there at the moment it
 * resumes (0 for NULL, without a load: a barrier's answer), in rax and in
 * xmm0.  So a caller whose answer is ready when it is resumed (a
 * barrier's 0, a sub-group operation's value, written by the member that
 * completes it) can end with `return switch(...)`: a tail call, which
 * leaves no frame of its own to return through.
 *
 * How a switch returns: the processor predicts a `ret` from the call that
 * entered the routine, which is right only when the context being resumed
 * stopped at that same call, and wrong each time it stopped anywhere else:
 * at another barrier of the kernel, at a sub-group operation, at its exit,
 * before its start.  So a switch returns with `ret` when the two return
 * addresses are equal, and otherwise pops the address and jumps to it:
 * that jump is predicted from the branch history instead (a kernel's
 * rendezvous follow each other in a pattern), and the return prediction
 * left behind by the call costs nothing until a return deeper than the
 * switch's caller.  Which is why the callers tail-call: a frame between the
 * kernel and the switch would return through a mispredicted `ret` each
 * time the two kernel call sites differ (measured: 16.3 -> 4.7 ns per
 * work-item per barrier in a kernel of two barriers, docs/performance.md,
 * "The life of a fiber work-item").
 *
 * Saved frame, from the handle upwards:
 *   0: MXCSR (low 32 bits), x87 CW (high 32 bits)   8: result
 *   16: r15   24: r14   32: r13   40: r12   48: rbx   56: rbp   64: return
 */
        .text

/* Push the callee-saved registers, the result address (rdx) and room for
 * the FPU control words: the saved frame above, below the return
 * address.
 *
 * Unwinders must find the caller at every instruction (perf samples
 * anywhere): the CFI follows each push and pop, and says where each
 * register was saved.  rbp is pointed at the pushed rbp, a frame of the
 * switch's own: callers tail-call the switch, so the return address above
 * it is the kernel's, and a frame pointer walk from inside the switch
 * finds the kernel, then the suspended fiber's frames, until rbp's pop;
 * the resumed one's after.  Once rsp holds the other context, the rules
 * describe its saved frame: DWARF unwinders continue in the context being
 * resumed, whose frames are intact. */
        .macro SAVE_CALLEE_SAVED
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbp, 0
        movq    %rsp, %rbp
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbx, 0
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r12, 0
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r13, 0
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r14, 0
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r15, 0
        pushq   %rdx
        .cfi_adjust_cfa_offset 8
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        .endm

/* Pop a saved frame and return into its context with the 64 bits at its
 * result address (0 for NULL) in rax and xmm0: with `ret` when its return
 * address equals \entry_ret (the one the switch was called from), else by
 * a jump (see above).  The unwind rules of the saved frame hold again after the
 * `ret` (code placed after the macro, such as .Lreload_fpu, still runs with
 * the frame pushed). */
        .macro RESTORE_CALLEE_SAVED_AND_RETURN entry_ret
        .cfi_remember_state
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %rax
        .cfi_adjust_cfa_offset -8
        testq   %rax, %rax
        jz      .Lnull\@
        movq    (%rax), %rax
.Lnull\@:
        movq    %rax, %xmm0
        popq    %r15
        .cfi_adjust_cfa_offset -8
        .cfi_restore r15
        popq    %r14
        .cfi_adjust_cfa_offset -8
        .cfi_restore r14
        popq    %r13
        .cfi_adjust_cfa_offset -8
        .cfi_restore r13
        popq    %r12
        .cfi_adjust_cfa_offset -8
        .cfi_restore r12
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbx
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbp
        cmpq    (%rsp), \entry_ret
        jne     .Ljump\@
        ret
.Ljump\@:
        popq    %rcx
        .cfi_adjust_cfa_offset -8
        .cfi_register rip, rcx
        jmp     *%rcx
        .cfi_restore_state
        .endm

/* The typed names of a _result routine are bare labels (no type, no size)
 * and shorter: perf names code after the longest of the names at an
 * address, and should name it after the _result routine. */
        .globl  fpar__ctx_switch
        .hidden fpar__ctx_switch
        .type   fpar__ctx_switch, @function
        .globl  fpar__ctx_switch_result
        .hidden fpar__ctx_switch_result
        .type   fpar__ctx_switch_result, @function
        .globl  fpar__ctx_switch_u32
        .hidden fpar__ctx_switch_u32
        .globl  fpar__ctx_switch_f32
        .hidden fpar__ctx_switch_f32
        .globl  fpar__ctx_switch_f64
        .hidden fpar__ctx_switch_f64
        .p2align 4
fpar__ctx_switch:
        .cfi_startproc
        xorl    %edx, %edx
        jmp     fpar__ctx_switch_result
        .size   fpar__ctx_switch, .-fpar__ctx_switch
        .p2align 4
fpar__ctx_switch_result:
fpar__ctx_switch_u32:
fpar__ctx_switch_f32:
fpar__ctx_switch_f64:
        movq    (%rsp), %r11
        SAVE_CALLEE_SAVED
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        /* Read them back with loads of exactly the stored sizes, so that
         * they forward from the store buffer instead of stalling. */
        movl    (%rsp), %eax
        movzwl  4(%rsp), %ecx
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        xorl    (%rsp), %eax
        testl   $0xffc0, %eax
        jnz     .Lreload_fpu
        cmpw    4(%rsp), %cx
        jne     .Lreload_fpu
.Lresume:
        RESTORE_CALLEE_SAVED_AND_RETURN %r11
.Lreload_fpu:
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        jmp     .Lresume
        .cfi_endproc
        .size   fpar__ctx_switch_result, .-fpar__ctx_switch_result

        .globl  fpar__ctx_switch_shared_fpenv
        .hidden fpar__ctx_switch_shared_fpenv
        .type   fpar__ctx_switch_shared_fpenv, @function
        .globl  fpar__ctx_switch_shared_fpenv_result
        .hidden fpar__ctx_switch_shared_fpenv_result
        .type   fpar__ctx_switch_shared_fpenv_result, @function
        .globl  fpar__ctx_switch_shared_fpenv_u32
        .hidden fpar__ctx_switch_shared_fpenv_u32
        .globl  fpar__ctx_switch_shared_fpenv_f32
        .hidden fpar__ctx_switch_shared_fpenv_f32
        .globl  fpar__ctx_switch_shared_fpenv_f64
        .hidden fpar__ctx_switch_shared_fpenv_f64
        .p2align 4
fpar__ctx_switch_shared_fpenv:
        .cfi_startproc
        xorl    %edx, %edx
        jmp     fpar__ctx_switch_shared_fpenv_result
        .size   fpar__ctx_switch_shared_fpenv, .-fpar__ctx_switch_shared_fpenv
        .p2align 4
fpar__ctx_switch_shared_fpenv_result:
fpar__ctx_switch_shared_fpenv_u32:
fpar__ctx_switch_shared_fpenv_f32:
fpar__ctx_switch_shared_fpenv_f64:
        movq    (%rsp), %r11
        SAVE_CALLEE_SAVED
        movq    %rsp, (%rdi)
        movq    %rsi, %rsp
        RESTORE_CALLEE_SAVED_AND_RETURN %r11
        .cfi_endproc
        .size   fpar__ctx_switch_shared_fpenv_result, .-fpar__ctx_switch_shared_fpenv_result

/* First code a fresh context runs: the initial frame made by
 * fpar__ctx_make() "returns" here with entry in r12 and its argument in
 * r13.  rbp is 0 and the return address is marked undefined, so frame
 * pointer walkers (perf) and DWARF unwinders (gdb) both stop here: a
 * fiber's backtrace ends cleanly at its kernel.  A fresh context's
 * saved frame returns past the leading nop (fpar__ctx_make()): unwinders
 * look a return address up minus one, which must still be the
 * trampoline. */
        .globl  fpar__ctx_trampoline
        .hidden fpar__ctx_trampoline
        .type   fpar__ctx_trampoline, @function
        .p2align 4
fpar__ctx_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        nop
        movq    %r13, %rdi
        callq   *%r12
        ud2
        .cfi_endproc
        .size   fpar__ctx_trampoline, .-fpar__ctx_trampoline

        .section .note.GNU-stack,"",@progbits
