/* SPDX-License-Identifier: MIT */
/* test_context.c - the internal context switch (sched/fiber/context.h) on its
 * own, without workers or kernels.
 *
 * This program is compiled with the hand-written x86-64 switch when the
 * machine has one, else with the ucontext fallback.  Every test runs
 * against whichever it got; the few checks that only hold for one of them
 * say so.  Made contexts never return: each test leaves them suspended and
 * unmaps their stacks.
 */
#include <fenv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "sched/fiber/context.h"
#include "testutil.h"

#define TEST_STACK_SIZE (64 * 1024)

typedef void (*switch_fn)(void **save, void *load);

/* The two switch routines.  A context saved by one is only resumed by the
 * same one, so each test uses a single routine throughout. */
static const struct {
  const char *name;
  switch_fn fn;
} switches[] = {
    {"fpar__ctx_switch", fpar__ctx_switch},
    {"fpar__ctx_switch_shared_fpenv", fpar__ctx_switch_shared_fpenv},
};

#define NUM_SWITCHES (sizeof switches / sizeof switches[0])

/* Stack memory for made contexts: [lo, hi). */
typedef struct test_stack {
  unsigned char *lo, *hi;
} test_stack;

static test_stack stack_map(size_t size) {
  test_stack s;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

  ck_assert_msg(p != MAP_FAILED, "cannot map a %zu-byte stack", size);
  s.lo = p;
  s.hi = s.lo + size;
  return s;
}

static void stack_unmap(test_stack *s) {
  munmap(s->lo, (size_t)(s->hi - s->lo));
  s->lo = s->hi = NULL;
}

/* ---- Ping-pong --------------------------------------------------------- */

typedef struct pingpong {
  switch_fn sw;
  void *main_ctx, *fiber_ctx;
  uint64_t value; /* main sends v, the fiber answers v * v + 1 */
  size_t trips;   /* answers the fiber gave */
} pingpong;

static void pingpong_entry(void *arg) {
  pingpong *p = arg;

  for (;;) {
    p->value = p->value * p->value + 1;
    p->trips++;
    p->sw(&p->fiber_ctx, p->main_ctx);
  }
}

/* Play trips round trips between the calling thread and a made context;
 * returns how many came back with the right answer. */
static size_t pingpong_play(switch_fn sw, size_t trips) {
  test_stack s = stack_map(TEST_STACK_SIZE);
  pingpong p;
  size_t i, right = 0;

  memset(&p, 0, sizeof p);
  p.sw = sw;
  if (fpar__ctx_self_init(&p.main_ctx) != 0)
    return 0;
  p.fiber_ctx =
      fpar__ctx_make(s.lo, s.hi, pingpong_entry, &p, fpar__ctx_fpu_state());
  for (i = 0; i < trips; i++) {
    p.value = i;
    sw(&p.main_ctx, p.fiber_ctx);
    right += p.value == (uint64_t)i * i + 1 && p.trips == i + 1;
  }
  fpar__ctx_self_destroy(&p.main_ctx);
  stack_unmap(&s);
  return right;
}

START_TEST(test_pingpong) {
  ck_assert_uint_eq(pingpong_play(switches[_i].fn, 1000), 1000);
}
END_TEST

static void *pingpong_thread(void *arg) {
  size_t *right = arg;

  *right = pingpong_play(fpar__ctx_switch, 1000);
  return NULL;
}

/* Workers each switch on their own thread: the thread's own context must
 * not depend on the thread that made the others. */
START_TEST(test_pingpong_on_other_thread) {
  pthread_t t;
  size_t right = 0;

  ck_assert_int_eq(pthread_create(&t, NULL, pingpong_thread, &right), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_uint_eq(right, 1000);
}
END_TEST

/* ---- A ring of contexts ------------------------------------------------ */

#define RING 64
#define RING_ROUNDS 100

typedef struct ring ring;

typedef struct ring_member {
  ring *r;
  size_t index;
} ring_member;

struct ring {
  switch_fn sw;
  void *main_ctx;
  void *ctx[RING];
  ring_member members[RING];
  size_t log[RING * RING_ROUNDS]; /* indices in the order they ran */
  size_t logged;
};

/* Member i logs itself and passes control to member i + 1; the last one
 * returns to the main context. */
static void ring_entry(void *arg) {
  ring_member *m = arg;
  ring *r = m->r;
  size_t i = m->index;

  for (;;) {
    r->log[r->logged++] = i;
    r->sw(&r->ctx[i], i + 1 < RING ? r->ctx[i + 1] : r->main_ctx);
  }
}

START_TEST(test_ring_of_contexts) {
  ring *r = calloc(1, sizeof *r);
  test_stack s = stack_map(RING * TEST_STACK_SIZE);
  size_t i, round;

  ck_assert_ptr_nonnull(r);
  r->sw = switches[_i].fn;
  ck_assert_int_eq(fpar__ctx_self_init(&r->main_ctx), 0);
  for (i = 0; i < RING; i++) {
    r->members[i].r = r;
    r->members[i].index = i;
    r->ctx[i] = fpar__ctx_make(s.lo + i * TEST_STACK_SIZE,
                               s.lo + (i + 1) * TEST_STACK_SIZE, ring_entry,
                               &r->members[i], fpar__ctx_fpu_state());
  }
  for (round = 0; round < RING_ROUNDS; round++) {
    r->sw(&r->main_ctx, r->ctx[0]);
    ck_assert_uint_eq(r->logged, (round + 1) * RING);
  }
  for (i = 0; i < RING * RING_ROUNDS; i++)
    ck_assert_msg(r->log[i] == i % RING, "step %zu ran member %zu, not %zu", i,
                  r->log[i], i % RING);
  fpar__ctx_self_destroy(&r->main_ctx);
  stack_unmap(&s);
  free(r);
}
END_TEST

/* ---- Callee-saved registers -------------------------------------------- */

/* Twelve values live across every call to yield: more than there are
 * callee-saved registers, so some live in them and the rest in the stack
 * frame.  A switch that lost either changes the result. */
static __attribute__((noinline)) uint64_t
mix_with_yields(uint64_t seed, unsigned rounds, void (*yield)(void)) {
  uint64_t a = seed, b = seed ^ 0x9e3779b97f4a7c15u, c = seed * 3,
           d = seed + 17, e = ~seed, f = seed << 7, g = seed >> 3,
           h = seed * 0xbf58476d1ce4e5b9u, i = seed ^ 0x94d049bb133111ebu,
           j = seed + 0x1234567, k = seed * 5 + 1, l = seed ^ (seed >> 31);
  unsigned r;

  for (r = 0; r < rounds; r++) {
    yield();
    a += b * 3;
    b ^= c >> 7;
    c += d;
    d ^= e << 5;
    e += f;
    f ^= g * 7;
    g += h;
    h ^= i >> 3;
    i += j;
    j ^= k << 11;
    k += l;
    l ^= a + r;
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l;
}

static void no_yield(void) {}

/* State of the register test; yield functions take no argument. */
typedef struct clobber_state {
  switch_fn sw;
  void *main_ctx, *clobber_ctx, *worker_ctx;
  void **yield_save; /* where the yielding context is saved */
  uint64_t seed, worker_result;
} clobber_state;

static clobber_state cs;

/* Fill the callee-saved registers with garbage, then keep the
 * floating-point and integer units busy with other values. */
static void scramble_registers(void) {
#if defined(__x86_64__)
  __asm__ volatile("movq $-1, %%rbx\n\t"
                   "movq $-2, %%r12\n\t"
                   "movq $-3, %%r13\n\t"
                   "movq $-4, %%r14\n\t"
                   "movq $-5, %%r15\n\t" ::
                       : "rbx", "r12", "r13", "r14", "r15");
#endif
  cs.seed = mix_with_yields(cs.seed + 1, 3, no_yield);
}

/* Resumes whoever yielded to it, after scrambling the registers. */
static void clobber_entry(void *arg) {
  (void)arg;
  for (;;) {
    scramble_registers();
    cs.sw(&cs.clobber_ctx, *cs.yield_save);
  }
}

static void yield_to_clobberer(void) {
  cs.sw(cs.yield_save, cs.clobber_ctx);
}

/* A made context runs the mix, yielding to the clobberer, and hands its
 * result back to the main context. */
static void worker_entry(void *arg) {
  (void)arg;
  cs.yield_save = &cs.worker_ctx;
  cs.worker_result = mix_with_yields(42, 200, yield_to_clobberer);
  for (;;)
    cs.sw(&cs.worker_ctx, cs.main_ctx);
}

START_TEST(test_callee_saved_registers_survive) {
  test_stack s = stack_map(2 * TEST_STACK_SIZE);
  uint64_t want_main = mix_with_yields(7, 200, no_yield);
  uint64_t want_worker = mix_with_yields(42, 200, no_yield);

  memset(&cs, 0, sizeof cs);
  cs.sw = switches[_i].fn;
  ck_assert_int_eq(fpar__ctx_self_init(&cs.main_ctx), 0);
  cs.clobber_ctx = fpar__ctx_make(s.lo, s.lo + TEST_STACK_SIZE, clobber_entry,
                                  NULL, fpar__ctx_fpu_state());
  cs.worker_ctx = fpar__ctx_make(s.lo + TEST_STACK_SIZE, s.hi, worker_entry,
                                 NULL, fpar__ctx_fpu_state());
  /* The thread's own context yields... */
  cs.yield_save = &cs.main_ctx;
  ck_assert_uint_eq(mix_with_yields(7, 200, yield_to_clobberer), want_main);
  /* ...and so does a made one. */
  cs.sw(&cs.main_ctx, cs.worker_ctx);
  ck_assert_uint_eq(cs.worker_result, want_worker);
  fpar__ctx_self_destroy(&cs.main_ctx);
  stack_unmap(&s);
}
END_TEST

/* ---- Floating-point control state --------------------------------------- */

/* -1/3 in the current rounding mode: rounding up and to nearest differ for
 * it.  The volatile operands keep the division at run time. */
static float negative_third(void) {
  volatile float minus_one = -1.0f, three = 3.0f;

  return minus_one / three;
}

static float negative_third_rounded(int mode) {
  float r;

  ck_assert_int_eq(fesetround(mode), 0);
  r = negative_third();
  ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
  return r;
}

/* How the round-up context sets its mode: through the C library (x87 and
 * MXCSR), or by writing MXCSR alone. */
enum { ROUND_BY_FESETROUND, ROUND_BY_MXCSR };

typedef struct rounding_state {
  void *main_ctx, *fiber_ctx;
  int how;
  float up, nearest;       /* -1/3 rounded each way */
  unsigned resumed, right; /* the fiber's resumptions and good checks */
} rounding_state;

static void set_round_up(int how) {
#if defined(__x86_64__)
  if (how == ROUND_BY_MXCSR) {
    _mm_setcsr((_mm_getcsr() & ~_MM_ROUND_MASK) | _MM_ROUND_UP);
    return;
  }
#endif
  fesetround(FE_UPWARD);
}

/* Whether the current mode is "up" (or "nearest") as far as the way it was
 * set can tell, and arithmetic agrees. */
static int rounding_is(int how, int up, const rounding_state *st) {
  int ok = negative_third() == (up ? st->up : st->nearest);

#if defined(__x86_64__)
  ok &= _MM_GET_ROUNDING_MODE() == (up ? _MM_ROUND_UP : _MM_ROUND_NEAREST);
#endif
  if (how == ROUND_BY_FESETROUND || !up)
    ok &= fegetround() == (up ? FE_UPWARD : FE_TONEAREST);
  return ok;
}

/* Rounds up; checks its mode every time it is resumed. */
static void round_up_entry(void *arg) {
  rounding_state *st = arg;

  set_round_up(st->how);
  for (;;) {
    st->resumed++;
    st->right += rounding_is(st->how, 1, st);
    fpar__ctx_switch(&st->fiber_ctx, st->main_ctx);
  }
}

/* The context that rounds up and the main context (to nearest) switch 100
 * times; each must find its own mode after every switch. */
START_TEST(test_rounding_mode_travels_with_context) {
  enum { ROUNDS = 100 };
  test_stack s = stack_map(TEST_STACK_SIZE);
  rounding_state st;
  unsigned i, main_right = 0;

#if !defined(__x86_64__)
  if (_i == ROUND_BY_MXCSR)
    return; /* No MXCSR on this machine. */
#endif
  memset(&st, 0, sizeof st);
  st.how = _i;
  st.up = negative_third_rounded(FE_UPWARD);
  st.nearest = negative_third_rounded(FE_TONEAREST);
  ck_assert(st.up != st.nearest);
  ck_assert_int_eq(fpar__ctx_self_init(&st.main_ctx), 0);
  st.fiber_ctx =
      fpar__ctx_make(s.lo, s.hi, round_up_entry, &st, fpar__ctx_fpu_state());
  for (i = 0; i < ROUNDS; i++) {
    fpar__ctx_switch(&st.main_ctx, st.fiber_ctx);
    main_right += rounding_is(st.how, 0, &st);
  }
  ck_assert_uint_eq(st.resumed, ROUNDS);
  ck_assert_uint_eq(st.right, ROUNDS);
  ck_assert_uint_eq(main_right, ROUNDS);
  fesetround(FE_TONEAREST);
  fpar__ctx_self_destroy(&st.main_ctx);
  stack_unmap(&s);
}
END_TEST

/* Sets rounding up and switches back; the shared-environment switch must
 * leave that mode to the context it resumes. */
static void set_up_and_return_entry(void *arg) {
  rounding_state *st = arg;

  for (;;) {
    fesetround(FE_UPWARD);
    fpar__ctx_switch_shared_fpenv(&st->fiber_ctx, st->main_ctx);
  }
}

START_TEST(test_shared_fpenv_switch_leaves_mode) {
  test_stack s = stack_map(TEST_STACK_SIZE);
  rounding_state st;

  /* swapcontext always carries the floating-point environment, so only
   * the hand-written switch can share it. */
  if (strcmp(fpar__ctx_impl_name, "x86_64-sysv") != 0)
    return;
  memset(&st, 0, sizeof st);
  st.how = ROUND_BY_FESETROUND;
  st.up = negative_third_rounded(FE_UPWARD);
  st.nearest = negative_third_rounded(FE_TONEAREST);
  ck_assert_int_eq(fpar__ctx_self_init(&st.main_ctx), 0);
  st.fiber_ctx = fpar__ctx_make(s.lo, s.hi, set_up_and_return_entry, &st,
                                fpar__ctx_fpu_state());
  fpar__ctx_switch_shared_fpenv(&st.main_ctx, st.fiber_ctx);
  ck_assert(rounding_is(st.how, 1, &st));
  fesetround(FE_TONEAREST);
  fpar__ctx_self_destroy(&st.main_ctx);
  stack_unmap(&s);
}
END_TEST

/* ---- The stack a made context runs on ------------------------------------ */

typedef struct probe {
  void *main_ctx, *ctx;
  uintptr_t frame;        /* the entry function's frame address */
  uintptr_t callee_frame; /* the frame of a function it calls */
  uintptr_t local;        /* a local variable of the entry function */
  uintptr_t aligned;      /* a 16-byte-aligned local, as the code sees it */
  char text[32];          /* printf of a double: uses aligned SSE spills */
} probe;

static __attribute__((noinline)) uintptr_t callee_frame_address(void) {
  return (uintptr_t)__builtin_frame_address(0);
}

static void probe_entry(void *arg) {
  probe *p = arg;
  volatile unsigned char local = 1;
  _Alignas(16) unsigned char buf[16];
  uintptr_t aligned = (uintptr_t)buf;

  /* Hide the address from the compiler, which would otherwise fold the
   * alignment check it believes in. */
  __asm__ volatile("" : "+r"(aligned));
  buf[0] = local;
  p->frame = (uintptr_t)__builtin_frame_address(0);
  p->callee_frame = callee_frame_address();
  p->local = (uintptr_t)&local;
  p->aligned = aligned;
  fpar__ctx_switch(&p->ctx, p->main_ctx);
  /* Resumed once the addresses have been checked. */
  snprintf(p->text, sizeof p->text, "%.2f", 2.5 + buf[0]);
  for (;;)
    fpar__ctx_switch(&p->ctx, p->main_ctx);
}

/* How far below stack_hi a made context may still start its frames (the
 * ucontext fallback keeps its record there). */
#define TOP_SLACK (16 * 1024)

static const size_t top_offsets[] = {0, 1, 7, 8, 9, 15, 16, 40};

/* The entry runs on the given stack near its top, 16-byte aligned as the
 * ABI wants for SSE, whatever the alignment of stack_hi. */
START_TEST(test_entry_stack_and_alignment) {
  test_stack s = stack_map(TEST_STACK_SIZE);
  uintptr_t lo = (uintptr_t)s.lo, hi = (uintptr_t)s.hi - top_offsets[_i];
  probe p;

  memset(&p, 0, sizeof p);
  ck_assert_int_eq(fpar__ctx_self_init(&p.main_ctx), 0);
  p.ctx =
      fpar__ctx_make(s.lo, (void *)hi, probe_entry, &p, fpar__ctx_fpu_state());
  fpar__ctx_switch(&p.main_ctx, p.ctx);
  ck_assert_msg(p.local >= lo && p.local < hi,
                "a local at %p is outside the stack [%p, %p)", (void *)p.local,
                (void *)lo, (void *)hi);
  ck_assert_msg(hi - p.local < TOP_SLACK,
                "frames start %zu bytes below stack_hi",
                (size_t)(hi - p.local));
  ck_assert_msg(p.callee_frame >= lo && p.callee_frame < p.frame,
                "the callee's frame %p is not below the entry's %p",
                (void *)p.callee_frame, (void *)p.frame);
  /* With frame pointers (AM_CFLAGS), the frame address is the stack
   * pointer at entry minus the pushed frame pointer: 16-byte aligned
   * exactly when the entry saw the ABI's alignment. */
  ck_assert_msg(p.frame % 16 == 0, "entry frame %p is not 16-byte aligned",
                (void *)p.frame);
  ck_assert_msg(p.callee_frame % 16 == 0,
                "callee frame %p is not 16-byte aligned",
                (void *)p.callee_frame);
  ck_assert_msg(p.aligned % 16 == 0, "an _Alignas(16) local is at %p",
                (void *)p.aligned);
  fpar__ctx_switch(&p.main_ctx, p.ctx);
  ck_assert_str_eq(p.text, "3.50");
  fpar__ctx_self_destroy(&p.main_ctx);
  stack_unmap(&s);
}
END_TEST

/* ---- Results ------------------------------------------------------------ */

/* The _result routines of each family, in the order of switches[]. */
static const struct {
  uint64_t (*u64)(void **save, void *load, const uint64_t *result);
  uint32_t (*u32)(void **save, void *load, const uint64_t *result);
  float (*f32)(void **save, void *load, const uint64_t *result);
  double (*f64)(void **save, void *load, const uint64_t *result);
} result_switches[] = {
    {fpar__ctx_switch_result, fpar__ctx_switch_u32, fpar__ctx_switch_f32,
     fpar__ctx_switch_f64},
    {fpar__ctx_switch_shared_fpenv_result, fpar__ctx_switch_shared_fpenv_u32,
     fpar__ctx_switch_shared_fpenv_f32, fpar__ctx_switch_shared_fpenv_f64},
};

typedef struct results {
  unsigned family;
  void *main_ctx, *fiber_ctx;
  uint64_t to_main;  /* what main's switch finds when main is resumed */
  uint64_t to_fiber; /* what the fiber's switch finds */
  uint64_t fiber_got_u64;
  float fiber_got_f32;
} results;

static uint64_t f32_bits_with_high(float f, uint32_t high) {
  uint32_t u;

  memcpy(&u, &f, sizeof u);
  return (uint64_t)high << 32 | u;
}

static uint64_t f64_bits(double d) {
  uint64_t u;

  memcpy(&u, &d, sizeof u);
  return u;
}

static void results_entry(void *arg) {
  results *r = arg;
  unsigned k = r->family;

  r->to_main = 0x0123456789abcdefu; /* written after main was suspended */
  r->fiber_got_u64 =
      result_switches[k].u64(&r->fiber_ctx, r->main_ctx, &r->to_fiber);
  r->to_main = 0xdeadbeef00000000u | 0x76543210u;
  r->fiber_got_f32 =
      result_switches[k].f32(&r->fiber_ctx, r->main_ctx, &r->to_fiber);
  r->to_main = f64_bits(-0.375);
  switches[k].fn(&r->fiber_ctx, r->main_ctx);
  r->to_main = 99; /* main's next switch gives no result address */
  switches[k].fn(&r->fiber_ctx, r->main_ctx);
  for (;;)
    switches[k].fn(&r->fiber_ctx, r->main_ctx);
}

/* A context suspended by a _result routine gets, when resumed, the word
 * its result address holds at that moment (not when it was suspended), or
 * 0 for a NULL address, whichever routine of the family resumes it, a
 * fresh context included; the typed forms read the low 32 bits (u32, f32)
 * or all 64 (f64). */
START_TEST(test_result_read_when_resumed) {
  test_stack s = stack_map(TEST_STACK_SIZE);
  results r;

  memset(&r, 0, sizeof r);
  r.family = (unsigned)_i;
  ck_assert_int_eq(fpar__ctx_self_init(&r.main_ctx), 0);
  r.fiber_ctx =
      fpar__ctx_make(s.lo, s.hi, results_entry, &r, fpar__ctx_fpu_state());
  r.to_main = 7; /* stale: the fiber overwrites it before main resumes */
  ck_assert_uint_eq(
      result_switches[_i].u64(&r.main_ctx, r.fiber_ctx, &r.to_main),
      0x0123456789abcdefu);
  r.to_fiber = 0xfedcba9876543210u;
  ck_assert_uint_eq(
      result_switches[_i].u32(&r.main_ctx, r.fiber_ctx, &r.to_main),
      0x76543210u);
  ck_assert_uint_eq(r.fiber_got_u64, 0xfedcba9876543210u);
  r.to_fiber = f32_bits_with_high(2.5f, 0xffffffffu);
  ck_assert(result_switches[_i].f64(&r.main_ctx, r.fiber_ctx, &r.to_main) ==
            -0.375);
  ck_assert(r.fiber_got_f32 == 2.5f);
  ck_assert_uint_eq(result_switches[_i].u64(&r.main_ctx, r.fiber_ctx, NULL), 0);
  fpar__ctx_self_destroy(&r.main_ctx);
  stack_unmap(&s);
}
END_TEST

/* ---- Thread contexts and the implementation's name ----------------------- */

START_TEST(test_self_init_destroy) {
  unsigned i;

  for (i = 0; i < 1000; i++) {
    void *ctx = &ctx; /* garbage the init must replace */
    ck_assert_int_eq(fpar__ctx_self_init(&ctx), 0);
    fpar__ctx_self_destroy(&ctx);
    ck_assert_ptr_null(ctx);
  }
  ck_assert_msg(strcmp(fpar__ctx_impl_name, "x86_64-sysv") == 0 ||
                    strcmp(fpar__ctx_impl_name, "ucontext") == 0,
                "unexpected implementation name \"%s\"", fpar__ctx_impl_name);
}
END_TEST

static Suite *context_suite(void) {
  Suite *s = suite_create("context");
  TCase *tc;

  tc = fpar_test_case("switching");
  tcase_add_loop_test(tc, test_pingpong, 0, NUM_SWITCHES);
  tcase_add_test(tc, test_pingpong_on_other_thread);
  tcase_add_loop_test(tc, test_ring_of_contexts, 0, NUM_SWITCHES);
  tcase_add_test(tc, test_self_init_destroy);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("results");
  tcase_add_loop_test(tc, test_result_read_when_resumed, 0, NUM_SWITCHES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("registers");
  tcase_add_loop_test(tc, test_callee_saved_registers_survive, 0, NUM_SWITCHES);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("fp_state");
  tcase_add_loop_test(tc, test_rounding_mode_travels_with_context,
                      ROUND_BY_FESETROUND, ROUND_BY_MXCSR + 1);
  tcase_add_test(tc, test_shared_fpenv_switch_leaves_mode);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("stack");
  tcase_add_loop_test(tc, test_entry_stack_and_alignment, 0,
                      sizeof top_offsets / sizeof top_offsets[0]);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(context_suite());
}
