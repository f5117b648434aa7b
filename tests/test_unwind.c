/* SPDX-License-Identifier: MIT */
/* test_unwind.c - kernels on fibers keep call stacks that debuggers and
 * profilers can walk.
 *
 * From inside a kernel, the DWARF unwinder (what gdb and `perf record
 * --call-graph dwarf` use) and the frame-pointer chain (what `perf record
 * -g` walks) must both reach the kernel's frame and then end cleanly at
 * the fiber's entry, before a barrier and after one, instead of running
 * on into a stale frame or garbage.  The hand-written context switch makes
 * that promise (its trampoline marks the return address undefined and
 * starts with a null frame pointer: context_x86_64_sysv.S), so this suite
 * is built with it.
 */
#include <stdint.h>
#include <unwind.h>

#include "testutil.h"

#define UNWIND_MAX_FRAMES 64
#define UNWIND_GROUP 4
#define UNWIND_GROUPS 8
#define UNWIND_ITEMS (UNWIND_GROUP * UNWIND_GROUPS)
/* Frames a fiber's chain may hold above its kernel: the library's fiber
 * entry and the trampoline it is called from, with one to spare. */
#define UNWIND_MAX_ABOVE_KERNEL 3

/* What one walk from a kernel saw. */
typedef struct unwind_walk {
  int frames;    /* frames walked, the recording function's included */
  int kernel_at; /* index of the kernel's frame, -1 when not met */
  int ended;     /* the walk reached the end of the chain by itself */
  int backwards; /* a frame pointer that did not move up the stack */
} unwind_walk;

/* Start a walk from a kernel. */
static void walk_begin(unwind_walk *out) {
  *out = (unwind_walk){.kernel_at = -1};
}

/* Count a frame with return address ip; the first whose return address is
 * kernel_ret, the recording function's, is the kernel's. */
static void walk_frame(unwind_walk *out, uintptr_t ip, uintptr_t kernel_ret) {
  if (ip == kernel_ret && out->kernel_at < 0)
    out->kernel_at = out->frames;
  out->frames++;
}

/* Each work-item's walks before (0) and after (1) its barrier. */
typedef struct unwind_args {
  unwind_walk dwarf[UNWIND_ITEMS][2];
  unwind_walk fp[UNWIND_ITEMS][2];
} unwind_args;

/* ---- The DWARF walk ------------------------------------------------------ */

typedef struct unwind_state {
  uintptr_t kernel_ret; /* the recording function's return address */
  unwind_walk *out;
} unwind_state;

/* One frame of the walk; the unwinder's mark of the outermost frame (a
 * return address of 0, after the one whose return address is undefined)
 * is not counted. */
static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx, void *p) {
  unwind_state *s = p;
  uintptr_t ip = (uintptr_t)_Unwind_GetIP(ctx);

  if (ip == 0)
    return _URC_NO_REASON;
  if (s->out->frames == UNWIND_MAX_FRAMES)
    return _URC_NORMAL_STOP;
  walk_frame(s->out, ip, s->kernel_ret);
  return _URC_NO_REASON;
}

/* Walk the calling kernel's stack with the DWARF unwinder. */
static __attribute__((noinline, noclone)) void dwarf_walk(unwind_walk *out) {
  unwind_state s = {(uintptr_t)__builtin_return_address(0), out};

  walk_begin(out);
  out->ended = _Unwind_Backtrace(unwind_step, &s) == _URC_END_OF_STACK;
}

/* ---- The frame-pointer walk ---------------------------------------------- */

/* Walk the calling kernel's stack by its frame pointers, as perf does:
 * each frame holds the caller's frame pointer, then the return address.
 * Only called on fibers, whose chain the library ends with a null frame
 * pointer (the C library's thread entry makes no such promise). */
static __attribute__((noinline, noclone)) void fp_walk(unwind_walk *out) {
  void *const *fp = __builtin_frame_address(0);
  uintptr_t kernel_ret = (uintptr_t)__builtin_return_address(0);

  walk_begin(out);
  while (fp != NULL && out->frames < UNWIND_MAX_FRAMES) {
    void *const *up = fp[0];

    walk_frame(out, (uintptr_t)fp[1], kernel_ret);
    if (up != NULL && (uintptr_t)up <= (uintptr_t)fp) {
      out->backwards = 1;
      break;
    }
    fp = up;
  }
  out->ended = fp == NULL;
}

/* ---- The kernel ---------------------------------------------------------- */

static __attribute__((noinline)) void unwind_kernel(fpar_item *it, void *p) {
  unwind_args *a = p;
  size_t g = fpar_global_id(it, 0), lid = fpar_local_id(it, 0);

  dwarf_walk(&a->dwarf[g][0]);
  if (lid != 0) /* work-items 1.. start on fibers */
    fp_walk(&a->fp[g][0]);
  fpar_barrier(it);
  dwarf_walk(&a->dwarf[g][1]);
  if (lid != 0)
    fp_walk(&a->fp[g][1]);
}

static unwind_args *run_unwind_kernel(void) {
  fpar_test_env e;
  fpar_event *ev;
  unwind_args *a = calloc(1, sizeof *a);

  ck_assert_ptr_nonnull(a);
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(UNWIND_ITEMS),
                                      fpar_range1(UNWIND_GROUP), unwind_kernel,
                                      a, &ev));
  fpar_test_wait_ok(ev);
  fpar_test_env_fini(&e);
  return a;
}

/* Check one walk of work-item g: the kernel's frame met, and the end of
 * the chain reached by itself, close above the kernel when on a fiber. */
static void check_walk(const char *how, const unwind_walk *w, size_t g,
                       int when, int on_fiber) {
  const char *at = when == 0 ? "before" : "after";

  ck_assert_msg(!w->backwards,
                "%s walk of work-item %zu %s its barrier: a frame pointer "
                "points down the stack",
                how, g, at);
  ck_assert_msg(w->kernel_at >= 0,
                "%s walk of work-item %zu %s its barrier: the kernel's frame "
                "is not on the stack (%d frames)",
                how, g, at, w->frames);
  ck_assert_msg(w->ended,
                "%s walk of work-item %zu %s its barrier did not end by itself "
                "(%d frames)",
                how, g, at, w->frames);
  if (on_fiber)
    ck_assert_msg(w->frames - 1 - w->kernel_at <= UNWIND_MAX_ABOVE_KERNEL,
                  "%s walk of work-item %zu %s its barrier: %d frames above "
                  "the kernel on a fiber, at most %d expected",
                  how, g, at, w->frames - 1 - w->kernel_at,
                  UNWIND_MAX_ABOVE_KERNEL);
}

START_TEST(test_dwarf_walk_ends_at_fiber_entry) {
  unwind_args *a = run_unwind_kernel();

  for (size_t g = 0; g < UNWIND_ITEMS; g++)
    for (int when = 0; when < 2; when++)
      check_walk("the DWARF", &a->dwarf[g][when], g, when,
                 g % UNWIND_GROUP != 0);
  free(a);
}
END_TEST

START_TEST(test_frame_pointer_walk_ends_at_fiber_entry) {
  unwind_args *a = run_unwind_kernel();

  for (size_t g = 0; g < UNWIND_ITEMS; g++)
    if (g % UNWIND_GROUP != 0)
      for (int when = 0; when < 2; when++) {
        check_walk("the frame-pointer", &a->fp[g][when], g, when, 1);
        ck_assert_msg(a->fp[g][when].kernel_at == 0,
                      "the frame-pointer walk of work-item %zu met the "
                      "kernel's frame at %d, not first",
                      g, a->fp[g][when].kernel_at);
      }
  free(a);
}
END_TEST

static Suite *unwind_suite(void) {
  Suite *s = suite_create("unwind");
  TCase *tc = fpar_test_case("fibers");

  tcase_add_test(tc, test_dwarf_walk_ends_at_fiber_entry);
  tcase_add_test(tc, test_frame_pointer_walk_ends_at_fiber_entry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(unwind_suite());
}
