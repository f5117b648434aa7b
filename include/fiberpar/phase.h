/* SPDX-License-Identifier: MIT */
/** \file
 * fiberpar/phase.h - stackless phase kernels, and struct fpar_kernel, the
 * object every kernel-defining macro makes.
 *
 * Part of <fiberpar.h>, which includes it (including it alone brings
 * <fiberpar.h> too).  The lane form (FPAR_PHASE_LANE_KERNEL) also needs
 * <fiberpar/simd.h>.  The normal spelling of a kernel, FPAR_KERNEL with
 * fpar_parallel_for_kernel(), is in <fiberpar.h>.
 *
 * FPAR_PHASE_KERNEL(name, it, args, state_type, st) { ... } is a kernel
 * with barriers that needs no stack per work-item.  Its body is cut at its
 * barriers into phases, and the runtime runs phase k for every work-item
 * of the group as one plain loop (into which the body inlines), then phase
 * k + 1: the loop fission a compiler such as PoCL's does, written with
 * macros in the style of protothreads:
 *
 *   typedef struct { float tmp[256]; } red_local;   (group-local memory)
 *   typedef struct { unsigned s; } red_state;       (one per work-item)
 *
 *   FPAR_PHASE_KERNEL_LOCAL(reduce, it, args, red_state, st, red_local, lm) {
 *     float **a = args;                     (prologue: runs at every phase)
 *     size_t lid = fpar_local_id(it, 0);
 *     FPAR_PHASE_BEGIN();
 *     lm->tmp[lid] = a[0][fpar_global_id(it, 0)];
 *     for (st->s = 128; st->s > 0; st->s >>= 1) {
 *       FPAR_PHASE_BARRIER();
 *       if (lid < st->s)
 *         lm->tmp[lid] += lm->tmp[lid + st->s];
 *     }
 *     if (lid == 0)
 *       a[1][fpar_group_id(it, 0)] = lm->tmp[0];
 *     FPAR_PHASE_END();
 *   }
 *
 * The rules:
 *  - A value that lives across a barrier lives in the state struct (`st`,
 *    one per work-item, uninitialised at the start), or is recomputed by
 *    the prologue, the code before FPAR_PHASE_BEGIN() that runs each time
 *    a work-item enters a phase.  A local variable of the body does not
 *    survive FPAR_PHASE_BARRIER(): the call returns there, and the next
 *    phase starts a new call.  GCC warns of a local initialised before a
 *    barrier and in scope after it (FPAR_PHASE_BEGIN() turns on
 *    -Wjump-misses-init up to FPAR_PHASE_END()); declare each phase's
 *    temporaries inside braces.
 *  - A barrier may sit in loops and branches (jumping into them is what
 *    the macros do), as long as every work-item of the group reaches the
 *    same barriers in the same order, as with fpar_barrier(); loop
 *    counters live in the state.  Work-items that stop at different
 *    barriers, or return while others wait, fail the launch with
 *    FPAR_EBARRIER or FPAR_EDIVERGENCE naming the work-items and the
 *    barriers' "file:line", as fibers do.
 *  - The local struct (`lm`, the _LOCAL forms) is the group's, zero-filled
 *    when the group starts: the place for fixed-size local arrays, at no
 *    cost per work-item.  fpar_group_local_memory(), launch-time local
 *    buffers, all id queries and (in lane form) sub-group operations work
 *    as in any kernel.  Requests of group-local memory count per phase:
 *    the k-th request a work-item makes in a phase returns the group's
 *    object k, so request them in the prologue (every phase) or before the
 *    first barrier, keeping the pointer in the state.  A request of an
 *    object that exists, and fpar_local_buffer(), are inline reads that
 *    phase loops hoist; creating an object is a call.
 *  - `lm` and `st` are restrict pointers: the body reaches the local
 *    struct only through lm and its state only through st (OpenCL's
 *    __local memory is an address space of its own), so the compiler may
 *    keep their fields in registers across stores to global memory.
 *  - Inside a phase kernel the barrier is FPAR_PHASE_BARRIER(), never
 *    fpar_barrier() (which fails the launch when it runs as loops); a
 *    bare `break` outside your own loops and switches leaves the kernel.
 *
 * fpar_launch_desc.phase_mode or FIBERPAR_PHASE chooses how it runs:
 * loops (the default), fibers (each work-item a fiber that calls
 * fpar_barrier() where the body stops: the same source as an ordinary
 * kernel, for debugging and as a reference), or debug (loops with the
 * work-items of each phase in reverse order, and every call made out of
 * line on a stack filled with 0xff bytes, so that results that depend on
 * the order of work-items within a phase or on locals kept across a
 * barrier come out different from the fiber run).  In fibers and debug
 * modes the state starts filled with 0xff bytes (NaN as float or double),
 * so a state field read before it is written shows.  As loops, a scalar
 * kernel's phases each run in the faster of two compiled forms, which
 * every worker times on its first groups of the kernel; loops-fused and
 * loops-split pin one (docs/phase-kernels.md).
 */
#ifndef FIBERPAR_PHASE_H
#define FIBERPAR_PHASE_H

/* Part of <fiberpar.h>, which includes it; included on its own, it brings
 * the rest of <fiberpar.h>. */
#include <fiberpar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Runs phase `resume` (0: the start of the kernel, else the index of the
 *  barrier the work-items stopped at) for every call of a work group:
 *  row after row (dimensions 1 and 2), each row one loop over its calls.
 *  it is the group's work-item 0; local is the group's local struct
 *  (FPAR_PHASE_KERNEL_LOCAL) or NULL; states and stops hold one entry per
 *  call, row after row.  Each call's stop is written to stops: 0 if the
 *  call returned from the kernel, else line << 8 | index of the barrier
 *  where it stopped.  uniform: every state holds the same bytes (the
 *  runner may then start each call from a copy of state 0).  stops has
 *  one more entry after the calls': the library stores
 *  FPAR__PHASE_SAME_UNKNOWN there, and the runner may replace it with 1
 *  when the states ended the phase all equal, 0 when not.  Returns 0
 *  when all stops of the group are equal.  args_by_value: args points
 *  at the launch's FPAR_MAX_ARGS_SIZE-byte copy of arguments passed by
 *  value, which kernels only read (the runner may then give the calls a
 *  private copy of it).  Made by FPAR_PHASE_KERNEL. */
typedef unsigned (*fpar_phase_rows_fn)(const fpar_item *it, void *args,
                                       void *local, void *states,
                                       unsigned *stops, unsigned resume,
                                       int uniform, int args_by_value);

/** A kernel and its runners, made by FPAR_KERNEL, FPAR_LANE_KERNEL,
 *  FPAR_PHASE_KERNEL or FPAR_PHASE_LANE_KERNEL; set it as
 *  fpar_launch_desc.def or pass it to fpar_parallel_for_kernel(). */
struct fpar_kernel {
  const char *name;  /**< the name given to the macro */
  const char *file;  /**< the source file (barrier sites are file:line) */
  fpar_kernel_fn fn; /**< once per work-item (per sub-group of lanes);
                          for a phase kernel, its fiber form */
  fpar_row_fn row;   /**< the row runner, or NULL */
  unsigned lanes;    /**< work-items per call: 1 or FPAR_SIMD_WIDTH */
  fpar_phase_rows_fn phase_rows;       /**< phase kernels: a phase of a row */
  fpar_phase_rows_fn phase_debug_rows; /**< the same for FPAR_PHASE_DEBUG */
  /** phase_rows with the calls' stops checked after each row's item loops,
   *  or NULL (lane kernels) */
  fpar_phase_rows_fn phase_split_rows;
  size_t state_size;  /**< bytes of a call's state */
  size_t state_align; /**< its alignment */
  size_t local_size;  /**< bytes of the group's local struct, or 0 */
  size_t local_align; /**< its alignment */
  /** phase_rows compiled without loop vectorization, or NULL (lane
   *  kernels, FPAR_PHASE_ONE_FORM, builds not optimized by GCC) */
  fpar_phase_rows_fn phase_scalar_rows;
};

/**
 * \brief Fill the stack below the caller with 0xff bytes (the debug
 *        runner of phase kernels calls it before each call it makes).
 */
FPAR_EXTERN void fpar_phase_poison_stack(void);

/**
 * \brief Fail the running group: work-item `item` of a phase kernel left
 *        the group-uniform part of its state (FPAR_PHASE_KERNEL_UNIFORM)
 *        different from work-item `ref` at the barrier at `site` (the
 *        debug runner of phase kernels calls it).
 * \param item the local linear id of the work-item that differs.
 * \param ref the local linear id of the work-item it differs from.
 * \param site the barrier's "file:line".
 */
FPAR_EXTERN __attribute__((noreturn)) void
fpar_phase_nonuniform(size_t item, size_t ref, const char *site);

/* ---- Phase kernels ------------------------------------------------------ */

/** Define the phase kernel `name`, a `static const fpar_kernel`.  The body
 *  follows; in it `it` is the work-item, `args` the launch's argument and
 *  `st` points at the work-item's `state_type`.  Write it as prologue,
 *  FPAR_PHASE_BEGIN(), code with FPAR_PHASE_BARRIER()s, FPAR_PHASE_END()
 *  (see the top of this header). */
#define FPAR_PHASE_KERNEL(name, it, args, state_type, st)                      \
  FPAR__PHASE_KERNEL(name, fpar_item, it, args, state_type, st,                \
                     FPAR__PHASE_NO_UNIFORM, void, fpar_no_local_, 0, 1,       \
                     FPAR__PHASE_ITEM_CALL, 1, FPAR__PHASE_ONE_LANE,           \
                     FPAR__PHASE_SIMD)

/** FPAR_PHASE_KERNEL with a group-local struct, OpenCL's __local
 *  declarations: `lm` points at the group's `local_type`, zero-filled when
 *  the group starts, at no cost per work-item.  (In fibers mode it is the
 *  group's first fpar_group_local_memory() object of every phase.) */
#define FPAR_PHASE_KERNEL_LOCAL(name, it, args, state_type, st, local_type,    \
                                lm)                                            \
  FPAR__PHASE_KERNEL(                                                          \
      name, fpar_item, it, args, state_type, st, FPAR__PHASE_NO_UNIFORM,       \
      local_type, lm, sizeof(local_type), __alignof__(local_type),             \
      FPAR__PHASE_ITEM_CALL, 1, FPAR__PHASE_ONE_LANE, FPAR__PHASE_SIMD)

/** The state of a phase kernel that keeps nothing of its own across a
 *  barrier (its values live in the prologue, the local struct or global
 *  memory); FPAR_PHASE_KERNEL_STATELESS uses it. */
typedef struct fpar_phase_no_state {
  char unused_; /**< never read or written */
} fpar_phase_no_state;

/** FPAR_PHASE_KERNEL for a body with no state: a work-item carries nothing
 *  across a barrier but what the prologue recomputes.  Its phases always
 *  run the uniform loop (see FPAR_PHASE_KERNEL). */
#define FPAR_PHASE_KERNEL_STATELESS(name, it, args)                            \
  FPAR_PHASE_KERNEL(name, it, args, fpar_phase_no_state, fpar_phase_st_)

/** FPAR_PHASE_KERNEL_LOCAL with no state (see
 *  FPAR_PHASE_KERNEL_STATELESS). */
#define FPAR_PHASE_KERNEL_LOCAL_STATELESS(name, it, args, local_type, lm)      \
  FPAR_PHASE_KERNEL_LOCAL(name, it, args, fpar_phase_no_state, fpar_phase_st_, \
                          local_type, lm)

/** FPAR_PHASE_KERNEL in lane form (needs <fiberpar/simd.h>): the body
 *  receives `fpar_lanes *lk` for a sub-group of FPAR_SIMD_WIDTH
 *  work-items, and `st` is the sub-group's state. */
#define FPAR_PHASE_LANE_KERNEL(name, lk, args, state_type, st)                 \
  FPAR__PHASE_KERNEL(name, fpar_lanes, lk, args, state_type, st,               \
                     FPAR__PHASE_NO_UNIFORM, void, fpar_no_local_, 0, 1,       \
                     FPAR__PHASE_LANES_CALL, FPAR_SIMD_WIDTH,                  \
                     FPAR__PHASE_TAIL_LANES, FPAR__PHASE_NO_SIMD)

/** FPAR_PHASE_LANE_KERNEL with a group-local struct (see
 *  FPAR_PHASE_KERNEL_LOCAL). */
#define FPAR_PHASE_LANE_KERNEL_LOCAL(name, lk, args, state_type, st,           \
                                     local_type, lm)                           \
  FPAR__PHASE_KERNEL(name, fpar_lanes, lk, args, state_type, st,               \
                     FPAR__PHASE_NO_UNIFORM, local_type, lm,                   \
                     sizeof(local_type), __alignof__(local_type),              \
                     FPAR__PHASE_LANES_CALL, FPAR_SIMD_WIDTH,                  \
                     FPAR__PHASE_TAIL_LANES, FPAR__PHASE_NO_SIMD)

/** FPAR_PHASE_KERNEL with a group-uniform part of the state: `u` points at
 *  the work-item's `uniform_type`, the values that every work-item of the
 *  group holds alike when a phase starts and changes alike in it (the
 *  counters of loops around barriers, which the OpenCL rules make uniform;
 *  a window's offset; a seed every work-item read from local memory).  It
 *  is kept once per group, and each call of a phase loop starts from a
 *  copy of it that the compiler sees as loop-invariant: a loop bound, a
 *  stride, an offset into local memory that makes contiguous accesses
 *  instead of gathers, while `st` keeps what differs per work-item.  It is
 *  uninitialised at the start, as the state.  Debug mode checks it: a
 *  work-item that leaves it different from the others fails the launch
 *  with FPAR_EDIVERGENCE naming both work-items, the kernel and the
 *  barrier. */
#define FPAR_PHASE_KERNEL_UNIFORM(name, it, args, uniform_type, u, state_type, \
                                  st)                                          \
  FPAR__PHASE_KERNEL(name, fpar_item, it, args, state_type, st,                \
                     FPAR__PHASE_UNIFORM_PART(uniform_type, u), void,          \
                     fpar_no_local_, 0, 1, FPAR__PHASE_ITEM_CALL, 1,           \
                     FPAR__PHASE_ONE_LANE, FPAR__PHASE_SIMD)

/** FPAR_PHASE_KERNEL_UNIFORM with a group-local struct (see
 *  FPAR_PHASE_KERNEL_LOCAL). */
#define FPAR_PHASE_KERNEL_LOCAL_UNIFORM(name, it, args, uniform_type, u,       \
                                        state_type, st, local_type, lm)        \
  FPAR__PHASE_KERNEL(name, fpar_item, it, args, state_type, st,                \
                     FPAR__PHASE_UNIFORM_PART(uniform_type, u), local_type,    \
                     lm, sizeof(local_type), __alignof__(local_type),          \
                     FPAR__PHASE_ITEM_CALL, 1, FPAR__PHASE_ONE_LANE,           \
                     FPAR__PHASE_SIMD)

/** FPAR_PHASE_KERNEL_UNIFORM for a body whose only values across a
 *  barrier are group-uniform (the counter of a loop around barriers, as in
 *  a tree reduction): `u` as there, no per-work-item state to declare. */
#define FPAR_PHASE_KERNEL_UNIFORM_STATELESS(name, it, args, uniform_type, u)   \
  FPAR_PHASE_KERNEL_UNIFORM(name, it, args, uniform_type, u,                   \
                            fpar_phase_no_state, fpar_phase_st_)

/** FPAR_PHASE_KERNEL_LOCAL_UNIFORM with no per-work-item state (see
 *  FPAR_PHASE_KERNEL_UNIFORM_STATELESS). */
#define FPAR_PHASE_KERNEL_LOCAL_UNIFORM_STATELESS(                             \
    name, it, args, uniform_type, u, local_type, lm)                           \
  FPAR_PHASE_KERNEL_LOCAL_UNIFORM(name, it, args, uniform_type, u,             \
                                  fpar_phase_no_state, fpar_phase_st_,         \
                                  local_type, lm)

/** Open the phases of a phase kernel's body: the code before it is the
 *  prologue, run at the start of every phase. */
#define FPAR_PHASE_BEGIN()                                                     \
  FPAR__PHASE_WARN_PUSH                                                        \
  enum { fpar_phase_base_ = __COUNTER__ };                                     \
  switch (fpar_resume_) {                                                      \
  case 0:

/** The work-group barrier of a phase kernel (local and global memory
 *  fences): the work-item stops here, and the next phase resumes it just
 *  after. */
#define FPAR_PHASE_BARRIER() FPAR__PHASE_BARRIER(__COUNTER__, __LINE__)

/** Return from a phase kernel before its end. */
#define FPAR_PHASE_RETURN() return 0

/** Close the phases; the body ends here. */
#define FPAR_PHASE_END()                                                       \
  }                                                                            \
  FPAR__PHASE_WARN_POP                                                         \
  return 0

/* ---- Phase kernel internals ------------------------------------------- */

/* The uniform part of a kernel's state, as three arguments: its type, its
 * name in the body, and whether there is one. */
#define FPAR__PHASE_UNIFORM_PART(uniform_type, u) uniform_type, u, 1
#define FPAR__PHASE_NO_UNIFORM fpar_phase_no_state, fpar_phase_u_, 0

/* Everything a phase kernel is: its body (declared, then defined by the
 * code that follows the macro), the call of the body for the work-items a
 * runner's item stands for, and the runners.  (`uniform` is three
 * arguments: FPAR__PHASE_UNIFORM_PART or FPAR__PHASE_NO_UNIFORM.) */
#define FPAR__PHASE_KERNEL(name, item_type, it, args, state_type, st, uniform, \
                           local_type, lm, local_size, local_align, call,      \
                           step, lanes_at, simd)                               \
  FPAR__PHASE_KERNEL_(name, item_type, it, args, state_type, st, uniform,      \
                      local_type, lm, local_size, local_align, call, step,     \
                      lanes_at, simd)
#define FPAR__PHASE_KERNEL_(                                                   \
    name, item_type, it, args, state_type, st, uniform_type, u, has_u,         \
    local_type, lm, local_size, local_align, call, step, lanes_at, simd)       \
  FPAR__PHASE_BODY(name, item_type, it, args, state_type, st, uniform_type, u, \
                   local_type, lm);                                            \
  FPAR__ALWAYS_INLINE unsigned name##_fpar_call_(                              \
      fpar_item *fpar_it_, void *fpar_args_, void *fpar_lm_,                   \
      state_type *fpar_st_, uniform_type *fpar_u_, unsigned fpar_resume_,      \
      const char **fpar_site_, const fpar__group_view *fpar_pv_){call(         \
      name,                                                                    \
      local_type)} FPAR__PHASE_RUNNERS(name, state_type, uniform_type, has_u,  \
                                       FPAR__PHASE_U_OFFSET(local_size,        \
                                                            uniform_type),     \
                                       FPAR__PHASE_LOCAL_BYTES(                \
                                           local_size, uniform_type, has_u),   \
                                       FPAR__PHASE_LOCAL_ALIGN(                \
                                           local_align, uniform_type, has_u),  \
                                       step, lanes_at, simd)                   \
      FPAR__PHASE_BODY(name, item_type, it, args, state_type, st,              \
                       uniform_type, u, local_type, lm)

/* The group's uniform part lives after its local struct, in the group's
 * first local object: at this offset, which makes that object this large
 * and this aligned. */
#define FPAR__PHASE_U_OFFSET(local_size, uniform_type)                         \
  (((local_size) + __alignof__(uniform_type) - 1) /                            \
   __alignof__(uniform_type) * __alignof__(uniform_type))
#define FPAR__PHASE_LOCAL_BYTES(local_size, uniform_type, has_u)               \
  ((has_u)                                                                     \
       ? FPAR__PHASE_U_OFFSET(local_size, uniform_type) + sizeof(uniform_type) \
       : (size_t)(local_size))
#define FPAR__PHASE_LOCAL_ALIGN(local_align, uniform_type, has_u)              \
  ((has_u) && __alignof__(uniform_type) > (local_align)                        \
       ? __alignof__(uniform_type)                                             \
       : (size_t)(local_align))

/* The body: returns where the work-item stopped (see fpar_phase_rows_fn);
 * fpar_resume_ is the index of the barrier to resume after, 0 at the
 * start; *fpar_site_ receives the barrier's "file:line"; fpar_pv_ is the
 * view of a group run as phase loops, where FPAR_PHASE_GROUP stores and
 * reads inline (<fiberpar/group.h>), or NULL. */
#define FPAR__PHASE_BODY(name, item_type, it, args, state_type, st,            \
                         uniform_type, u, local_type, lm)                      \
  FPAR__ALWAYS_INLINE unsigned name##_fpar_body_(                              \
      item_type *it FPAR__UNUSED, void *args FPAR__UNUSED,                     \
      local_type *__restrict lm FPAR__UNUSED,                                  \
      state_type *__restrict st FPAR__UNUSED,                                  \
      uniform_type *__restrict u FPAR__UNUSED,                                 \
      unsigned fpar_resume_ FPAR__UNUSED,                                      \
      const char **fpar_site_ FPAR__UNUSED,                                    \
      const fpar__group_view *fpar_pv_ FPAR__UNUSED)

#define FPAR__PHASE_ITEM_CALL(name, local_type)                                \
  return name##_fpar_body_(fpar_it_, fpar_args_, (local_type *)fpar_lm_,       \
                           fpar_st_, fpar_u_, fpar_resume_, fpar_site_,        \
                           fpar_pv_);
#define FPAR__PHASE_LANES_CALL(name, local_type)                               \
  fpar_lanes fpar_lk_;                                                         \
  fpar_lanes_init(&fpar_lk_, fpar_it_);                                        \
  return name##_fpar_body_(&fpar_lk_, fpar_args_, (local_type *)fpar_lm_,      \
                           fpar_st_, fpar_u_, fpar_resume_, fpar_site_,        \
                           fpar_pv_);

/* n: one expansion of __COUNTER__, used for the barrier's index (n less
 * the kernel's base) and to name a label.  The label marks the path into
 * the barrier hot: GCC predicts returns of constants not taken, which would
 * put the usual path of a barrier in a loop out of line. */
#define FPAR__PHASE_BARRIER(n, line) FPAR__PHASE_STOP(n, line)
#define FPAR__PHASE_STOP(n, line)                                              \
  do {                                                                         \
    _Static_assert((n)-fpar_phase_base_ > 0 && (n)-fpar_phase_base_ < 256,     \
                   "at most 255 FPAR_PHASE_BARRIER() per kernel");             \
    fpar_phase_stop_##n : FPAR__PHASE_HOT_LABEL;                               \
    *fpar_site_ = __FILE__ ":" #line;                                          \
    return (unsigned)(line) << 8 | (unsigned)((n)-fpar_phase_base_);           \
  case (n)-fpar_phase_base_:;                                                  \
  } while (0)

/* Work-items of the lane call at x of a row ending at x_end. */
#define FPAR__PHASE_TAIL_LANES(x, x_end)                                       \
  ((x_end) - (x) < FPAR_SIMD_WIDTH ? (unsigned)((x_end) - (x))                 \
                                   : (unsigned)FPAR_SIMD_WIDTH)
#define FPAR__PHASE_ONE_LANE(x, x_end) 1u

/* The runners: the group's loops (one for every resume index below 8,
 * where the body's switch folds to straight code, and a generic one), its
 * debug form, the fiber form, and the fpar_kernel.  Loops make the group's
 * local struct once, as its first group-local object; the fiber form asks
 * for it at the start of every call.
 *
 * The loop over a row's calls is what the compiler must vectorize across
 * work-items, as PoCL's work-item loops are.  Its counter is an int (group
 * sizes are below 2^31), so that ids the kernel converts to int stay affine
 * in it; its iterations carry no dependences by the OpenCL rules
 * (FPAR__PHASE_SIMD says so); the stops are stored per call and folded
 * into an or and an and, which tell after the loops whether they agree.
 *
 * A state that is the same in every call at the start of a phase (the
 * loop counters around barriers, which the OpenCL rules make uniform, are
 * most states) runs the uniform loop: each call starts from a private copy
 * of call 0's state, loaded before the loops, so the compiler sees its
 * fields as invariant (a loop bound, a stride: contiguous accesses instead
 * of gathers, loops split at `lid < s` instead of masked), and the copy is
 * stored back after the call.  The phase runner (sched/group/phase.c) checks
 * the states before each phase.
 *
 * The calls' items point at a copy of the group's view (<fiberpar.h>)
 * taken when the phase starts: a kernel's requests of group-local objects
 * and launch-time buffers then read memory no store of the kernel can
 * touch, and the compiler hoists them out of the loop. */
#define FPAR__PHASE_RUNNERS(name, state_type, uniform_type, has_u, u_offset,   \
                            local_size, local_align, step, lanes_at, simd)     \
  FPAR__PHASE_RUNNERS_WARN_PUSH                                                \
  static __attribute__((noinline)) unsigned name##_fpar_outline_(              \
      fpar_item *fpar_it_, void *fpar_args_, void *fpar_lm_,                   \
      state_type *fpar_st_, uniform_type *fpar_u_, unsigned fpar_resume_,      \
      const char **fpar_site_, const fpar__group_view *fpar_pv_) {             \
    return name##_fpar_call_(fpar_it_, fpar_args_, fpar_lm_, fpar_st_,         \
                             fpar_u_, fpar_resume_, fpar_site_, fpar_pv_);     \
  }                                                                            \
  FPAR__ALWAYS_INLINE unsigned name##_fpar_group_(                             \
      const fpar_item *fpar_it_, void *fpar_args_, void *fpar_lm_,             \
      void *fpar_states_, unsigned *fpar_stops_, unsigned fpar_resume_,        \
      int fpar_way_, int fpar_own_args_, int fpar_split_) {                    \
    const size_t *fpar_lr_ = fpar_it_->geometry->local_range;                  \
    const int fpar_nx_ = (int)((fpar_lr_[0] + (step)-1) / (step));             \
    const size_t fpar_rows_ = fpar_lr_[1] * fpar_lr_[2];                       \
    const state_type fpar_st0_ = *(state_type *)fpar_states_;                  \
    uniform_type *const fpar_ug_ =                                             \
        (uniform_type *)((char *)fpar_lm_ + (u_offset));                       \
    uniform_type fpar_u0_, fpar_ulast_;                                        \
    size_t fpar_uref_ = (size_t)-1;                                            \
    fpar__group_view fpar_view_;                                               \
    fpar_item fpar_row_ = *fpar_it_;                                           \
    unsigned fpar_or_ = 0, fpar_and_ = ~0u;                                    \
    size_t fpar_r_, fpar_ly_ = 0, fpar_lz_ = 0;                                \
    int fpar_j_;                                                               \
    FPAR__PHASE_OWN_ARGS(fpar_own_args_)                                       \
    static const uniform_type fpar_uzero_ = {0};                               \
    fpar_u0_ = (has_u) ? *fpar_ug_ : fpar_uzero_;                              \
    fpar_ulast_ = fpar_u0_;                                                    \
    fpar__view_copy(fpar_it_, &fpar_row_, &fpar_view_);                        \
    for (fpar_r_ = 0; fpar_r_ < fpar_rows_; fpar_r_++) {                       \
      size_t fpar_y_ =                                                         \
          fpar_way_ == FPAR__PHASE_DEBUG ? fpar_rows_ - 1 - fpar_r_ : fpar_r_; \
      state_type *fpar_sts_ =                                                  \
          (state_type *)fpar_states_ + fpar_y_ * (size_t)fpar_nx_;             \
      unsigned *fpar_stp_ = fpar_stops_ + fpar_y_ * (size_t)fpar_nx_;          \
      /* The row's ids in dimensions 1 and 2: stepped, not divided (a          \
       * 64-bit division per row and phase), except in reverse. */             \
      if (fpar_way_ == FPAR__PHASE_DEBUG) {                                    \
        fpar_row_.local_id[1] = fpar_y_ % fpar_lr_[1];                         \
        fpar_row_.local_id[2] = fpar_y_ / fpar_lr_[1];                         \
      } else {                                                                 \
        fpar_row_.local_id[1] = fpar_ly_;                                      \
        fpar_row_.local_id[2] = fpar_lz_;                                      \
        if (++fpar_ly_ == fpar_lr_[1])                                         \
          fpar_ly_ = 0, fpar_lz_++;                                            \
      }                                                                        \
      fpar_row_.row_linear = fpar_lr_[0] * fpar_y_;                            \
      if (fpar_way_ == FPAR__PHASE_DEBUG) {                                    \
        for (fpar_j_ = fpar_nx_ - 1; fpar_j_ >= 0; fpar_j_--) {                \
          size_t fpar_x_ = (size_t)(fpar_j_ * (step));                         \
          uniform_type fpar_u_;                                                \
          const char *fpar_site_;                                              \
          __builtin_memcpy(&fpar_u_, &fpar_u0_, sizeof fpar_u_);               \
          fpar_item_seek(&fpar_row_, fpar_x_, lanes_at(fpar_x_, fpar_lr_[0]),  \
                         (local_size) != 0);                                   \
          fpar_phase_poison_stack();                                           \
          FPAR__PHASE_RECORD(name##_fpar_outline_(                             \
              &fpar_row_, fpar_args_, fpar_lm_, &fpar_sts_[fpar_j_], &fpar_u_, \
              fpar_resume_, &fpar_site_, fpar__phase_view(fpar_it_)))          \
          if ((has_u) && fpar_stp_[fpar_j_] != 0)                              \
            FPAR__PHASE_CHECK_UNIFORM(fpar_row_.row_linear + fpar_x_)          \
        }                                                                      \
      } else {                                                                 \
        /* Work-items in chunks whose count the compiler knows (scalar         \
         * kernels), the rest one at a time. */                                \
        const int fpar_full_ =                                                 \
            (step) == 1 ? fpar_nx_ - fpar_nx_ % FPAR__PHASE_CHUNK : 0;         \
        int fpar_b_, fpar_k_;                                                  \
        for (fpar_b_ = 0; fpar_b_ < fpar_full_;                                \
             fpar_b_ += FPAR__PHASE_CHUNK) {                                   \
          simd for (fpar_k_ = 0; fpar_k_ < FPAR__PHASE_CHUNK; fpar_k_++) {     \
            fpar_j_ = fpar_b_ + fpar_k_;                                       \
            FPAR__PHASE_ITEM(name, state_type, uniform_type, has_u, step,      \
                             lanes_at, local_size)                             \
          }                                                                    \
        }                                                                      \
        for (fpar_j_ = fpar_full_; fpar_j_ < fpar_nx_; fpar_j_++) {            \
          if ((step) == 1) {                                                   \
            FPAR__PHASE_ITEM_OUTLINE(name, uniform_type, has_u, local_size)    \
          } else {                                                             \
            FPAR__PHASE_ITEM(name, state_type, uniform_type, has_u, step,      \
                             lanes_at, local_size)                             \
          }                                                                    \
        }                                                                      \
        if (fpar_split_)                                                       \
          for (fpar_j_ = 0; fpar_j_ < fpar_nx_; fpar_j_++) {                   \
            fpar_or_ |= fpar_stp_[fpar_j_];                                    \
            fpar_and_ &= fpar_stp_[fpar_j_];                                   \
          }                                                                    \
      }                                                                        \
    }                                                                          \
    if (has_u)                                                                 \
      *fpar_ug_ = fpar_ulast_;                                                 \
    return fpar_or_ ^ fpar_and_;                                               \
  }                                                                            \
  /* Whether the calls' states ended the phase equal, read with loads as       \
   * wide as the loops' stores, which the processor then forwards: see         \
   * FPAR__PHASE_SAME.  The count of calls comes from the item, which the      \
   * loops keep anyway: read from the library's view, a pointer live across    \
   * them cost the loops a register (docs/phase-kernels-speed.md). */          \
  FPAR__ALWAYS_INLINE void name##_fpar_note_same_(const fpar_item *fpar_it_,   \
                                                  const void *fpar_states_,    \
                                                  unsigned *fpar_stops_) {     \
    const size_t *fpar_lr_ = fpar_it_->geometry->local_range;                  \
    size_t fpar_n_ =                                                           \
        (fpar_lr_[0] + (step)-1) / (step)*fpar_lr_[1] * fpar_lr_[2];           \
    FPAR__PHASE_SAME(state_type, fpar_states_, fpar_n_, fpar_stops_[fpar_n_])  \
  }                                                                            \
  static unsigned name##_fpar_debug_rows_(                                     \
      const fpar_item *fpar_it_, void *fpar_args_, void *fpar_lm_,             \
      void *fpar_states_, unsigned *fpar_stops_, unsigned fpar_resume_,        \
      int fpar_uniform_, int fpar_by_value_) {                                 \
    (void)fpar_uniform_, (void)fpar_by_value_;                                 \
    return name##_fpar_group_(fpar_it_, fpar_args_, fpar_lm_, fpar_states_,    \
                              fpar_stops_, fpar_resume_, FPAR__PHASE_DEBUG, 0, \
                              0);                                              \
  }                                                                            \
  FPAR__PHASE_ROWS(name, name##_fpar_rows_, step, 0, FPAR__PHASE_OPTIMIZE, 1)  \
  FPAR__PHASE_SPLIT_ROWS(name, step)                                           \
  FPAR__PHASE_SCALAR_ROWS(name, step)                                          \
  FPAR__PHASE_RUNNERS_WARN_POP                                                 \
  static void name##_fpar_fibers_(fpar_item *fpar_it_, void *fpar_args_) {     \
    state_type fpar_st_;                                                       \
    uniform_type fpar_u_;                                                      \
    const char *fpar_site_ = NULL;                                             \
    unsigned fpar_stop_ = 0;                                                   \
    __builtin_memset(&fpar_st_, 0xff, sizeof fpar_st_);                        \
    __builtin_memset(&fpar_u_, 0xff, sizeof fpar_u_);                          \
    for (;;) {                                                                 \
      void *fpar_lm_ =                                                         \
          (local_size)                                                         \
              ? fpar_group_local_memory(fpar_it_, (local_size), (local_align)) \
              : NULL;                                                          \
      fpar_stop_ =                                                             \
          name##_fpar_call_(fpar_it_, fpar_args_, fpar_lm_, &fpar_st_,         \
                            &fpar_u_, fpar_stop_ & 0xffu, &fpar_site_, NULL);  \
      if (fpar_stop_ == 0)                                                     \
        break;                                                                 \
      fpar_barrier_at(fpar_it_, fpar_site_);                                   \
      fpar_item_new_call(fpar_it_);                                            \
    }                                                                          \
  }                                                                            \
  static const fpar_kernel name = {#name,                                      \
                                   __FILE__,                                   \
                                   name##_fpar_fibers_,                        \
                                   NULL,                                       \
                                   step,                                       \
                                   name##_fpar_rows_,                          \
                                   name##_fpar_debug_rows_,                    \
                                   FPAR__PHASE_SPLIT_RUNNER(name, step),       \
                                   sizeof(state_type),                         \
                                   __alignof__(state_type),                    \
                                   (local_size),                               \
                                   (local_align),                              \
                                   FPAR__PHASE_SCALAR_RUNNER(name, step)};

/* A row runner of the kernel (fpar_kernel::phase_rows), its item loops
 * folding the calls' stops as they go (split: 0), or in a loop of their
 * own after each row (split: 1; fpar_kernel::phase_split_rows).  The
 * fold is a reduction, which keeps GCC from vectorizing many item loops:
 * without it some phases run twice as fast, others slower (a vectorized
 * loop that runs both sides of every test).  opt: the function's
 * optimization attribute (FPAR__PHASE_OPTIMIZE, or _SCALAR for
 * fpar_kernel::phase_scalar_rows).  fpar_phase_mode says which runs;
 * lane kernels, whose calls are vectors already, have one form. */
#define FPAR__PHASE_ROWS(name, fn, step, split, opt, note)                     \
  FPAR__ALWAYS_INLINE unsigned fn##_phase_(                                    \
      const fpar_item *fpar_it_, void *fpar_args_, void *fpar_lm_,             \
      void *fpar_states_, unsigned *fpar_stops_, unsigned fpar_resume_,        \
      int fpar_uniform_, int fpar_by_value_) {                                 \
    if (fpar_by_value_) {                                                      \
      FPAR__PHASE_DISPATCH(name, step, 1, split)                               \
    }                                                                          \
    FPAR__PHASE_DISPATCH(name, step, 0, split)                                 \
  }                                                                            \
  static opt unsigned fn(const fpar_item *fpar_it_, void *fpar_args_,          \
                         void *fpar_lm_, void *fpar_states_,                   \
                         unsigned *fpar_stops_, unsigned fpar_resume_,         \
                         int fpar_uniform_, int fpar_by_value_) {              \
    unsigned fpar_differ_;                                                     \
    /* The loops' calls store collectives' values in the group's view: a       \
     * library of another view (this kernel compiled with another header)      \
     * runs each call out of line, whose collectives call the library. */      \
    if (__builtin_expect(fpar__phase_view(fpar_it_) == NULL, 0))               \
      return name##_fpar_debug_rows_(fpar_it_, fpar_args_, fpar_lm_,           \
                                     fpar_states_, fpar_stops_, fpar_resume_,  \
                                     fpar_uniform_, fpar_by_value_);           \
    fpar_differ_ =                                                             \
        fn##_phase_(fpar_it_, fpar_args_, fpar_lm_, fpar_states_, fpar_stops_, \
                    fpar_resume_, fpar_uniform_, fpar_by_value_);              \
    if (note)                                                                  \
      name##_fpar_note_same_(fpar_it_, fpar_states_, fpar_stops_);             \
    return fpar_differ_;                                                       \
  }

/* The calls of a phase run in chunks of FPAR__PHASE_CHUNK work-items: an
 * inner loop whose count is a constant is one GCC vectorizes at -O2 (its
 * "very cheap" cost model takes no loop that would need a scalar epilogue
 * or a check of its count), 16 being a vector of floats or ints with
 * AVX-512 and two with AVX2.  The work-items of a row after its last full
 * chunk run one at a time out of line, so that the body is inlined once
 * per phase loop. */
#define FPAR__PHASE_CHUNK 16

/* The call of work-item fpar_j_ of the row, inlined: from a copy of call
 * 0's state (FPAR__PHASE_UNIFORM) or on its own state in place, and from
 * a copy of the group's uniform part, which every call leaves alike. */
#define FPAR__PHASE_ITEM(name, state_type, uniform_type, has_u, step,          \
                         lanes_at, local_size)                                 \
  {                                                                            \
    size_t fpar_x_ = (size_t)(fpar_j_ * (step));                               \
    state_type fpar_st_ = fpar_st0_;                                           \
    state_type *fpar_stj_ =                                                    \
        fpar_way_ == FPAR__PHASE_UNIFORM ? &fpar_st_ : &fpar_sts_[fpar_j_];    \
    uniform_type fpar_u_ = fpar_u0_;                                           \
    const char *fpar_site_;                                                    \
    unsigned fpar_stop_;                                                       \
    fpar_item_seek(&fpar_row_, fpar_x_, lanes_at(fpar_x_, fpar_lr_[0]),        \
                   (local_size) != 0);                                         \
    fpar_stop_ =                                                               \
        name##_fpar_call_(&fpar_row_, fpar_a_, fpar_lm_, fpar_stj_, &fpar_u_,  \
                          fpar_resume_, &fpar_site_, &fpar_view_);             \
    if (fpar_way_ == FPAR__PHASE_UNIFORM)                                      \
      fpar_sts_[fpar_j_] = fpar_st_;                                           \
    if (has_u)                                                                 \
      fpar_ulast_ = fpar_u_;                                                   \
    FPAR__PHASE_RECORD(fpar_stop_)                                             \
  }

/* The same call out of line (the work-items after the last chunk of a
 * row): on the launch's arguments and an item of the group's own view, so
 * that neither the runner's copies nor its row item escape, and on the
 * work-item's state in place. */
#define FPAR__PHASE_ITEM_OUTLINE(name, uniform_type, has_u, local_size)        \
  {                                                                            \
    fpar_item fpar_one_;                                                       \
    uniform_type fpar_u_ = fpar_u0_;                                           \
    const char *fpar_site_;                                                    \
    unsigned fpar_stop_;                                                       \
    fpar__item_call_copy(&fpar_row_, &fpar_one_);                              \
    if (fpar_way_ == FPAR__PHASE_UNIFORM)                                      \
      fpar_sts_[fpar_j_] = fpar_st0_;                                          \
    fpar_item_seek(&fpar_one_, (size_t)fpar_j_, 1, (local_size) != 0);         \
    fpar_stop_ = name##_fpar_outline_(                                         \
        &fpar_one_, fpar_args_, fpar_lm_, &fpar_sts_[fpar_j_], &fpar_u_,       \
        fpar_resume_, &fpar_site_, fpar__phase_view(fpar_it_));                \
    if (has_u)                                                                 \
      fpar_ulast_ = fpar_u_;                                                   \
    FPAR__PHASE_RECORD(fpar_stop_)                                             \
  }

/* Debug mode: the first call of the phase that stopped at a barrier gives
 * the uniform part every later one must leave (work-item `id`). */
#define FPAR__PHASE_CHECK_UNIFORM(id)                                          \
  {                                                                            \
    if (fpar_uref_ == (size_t)-1) {                                            \
      fpar_uref_ = (id);                                                       \
      __builtin_memcpy(&fpar_ulast_, &fpar_u_, sizeof fpar_ulast_);            \
    } else if (__builtin_memcmp(&fpar_ulast_, &fpar_u_, sizeof fpar_u_) != 0)  \
      fpar_phase_nonuniform((id), fpar_uref_, fpar_site_);                     \
  }

/* Record where call fpar_j_ of the row stopped, and fold it into the
 * group's or and and (unless the row's stops are folded after its loops). */
#define FPAR__PHASE_RECORD(stop)                                               \
  fpar_stp_[fpar_j_] = (stop);                                                 \
  if (!fpar_split_) {                                                          \
    fpar_or_ |= fpar_stp_[fpar_j_];                                            \
    fpar_and_ &= fpar_stp_[fpar_j_];                                           \
  }

/* After the calls' stops (stops[n], n the group's calls) the fused and
 * split runners note for the library whether the calls' states ended the
 * phase equal: 1 if so, 0 if not.  The library then skips a comparison
 * of its own before the next phase (which state it starts the calls
 * from: see FPAR__PHASE_UNIFORM), whose loads would wait for the phase's
 * last stores to reach the cache: its memcmp() reads them in pieces of
 * other widths and places (from state 0 and from state 1), which the
 * processor does not forward from the loops' vector stores.  This loop
 * is vectorized as the item loops were, with loads as wide as their
 * stores and at the same places, which the processor forwards (a phase
 * of 16 or 64 work-items with a 4-byte state, AMD Zen 5: 11-14% less
 * time per group and phase).  The scalar runner leaves the note to the
 * library: word by word, for 16 states, the loop cost more than the
 * comparison it saved (nw's port 5-15% slower).  States of 4 or 8 bytes
 * only: with others the entry keeps the library's
 * FPAR__PHASE_SAME_UNKNOWN and the library compares. */
#define FPAR__PHASE_SAME_UNKNOWN 2u
#if defined(__GNUC__)
typedef unsigned int __attribute__((may_alias)) fpar__phase_w32;
typedef unsigned long long __attribute__((may_alias)) fpar__phase_w64;
#define FPAR__PHASE_SAME(state_type, states, n, out)                           \
  if (sizeof(state_type) == 4) {                                               \
    FPAR__PHASE_SAME_WORDS(fpar__phase_w32, states, n, out)                    \
  } else if (sizeof(state_type) == 8) {                                        \
    FPAR__PHASE_SAME_WORDS(fpar__phase_w64, states, n, out)                    \
  }
/* The library aligns the states to 64 bytes. */
#define FPAR__PHASE_SAME_WORDS(word, states, n, out)                           \
  {                                                                            \
    const word *fpar_w_ = (const word *)__builtin_assume_aligned(states, 64);  \
    word fpar_first_ = fpar_w_[0], fpar_diff_ = 0;                             \
    size_t fpar_k_;                                                            \
    for (fpar_k_ = 0; fpar_k_ < (n); fpar_k_++)                                \
      fpar_diff_ |= fpar_w_[fpar_k_] ^ fpar_first_;                            \
    (out) = fpar_diff_ == 0;                                                   \
  }
#else
#define FPAR__PHASE_SAME(state_type, states, n, out) (void)(states), (void)(n);
#endif

/* The ways a group's loops run a phase. */
#define FPAR__PHASE_PLAIN 0   /* each call's state in place */
#define FPAR__PHASE_UNIFORM 1 /* each call from a copy of call 0's state */
#define FPAR__PHASE_DEBUG 2   /* in reverse, out of line, stack poisoned */

/* Whether the kernel is compiled with AddressSanitizer (GCC, clang). */
#if defined(__SANITIZE_ADDRESS__)
#define FPAR__PHASE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FPAR__PHASE_ASAN 1
#endif
#endif
#ifndef FPAR__PHASE_ASAN
#define FPAR__PHASE_ASAN 0
#endif

/* The group's loops for a phase: uniform where the states allow it, each
 * resume index below 8 apart, the calls on a private copy of the
 * arguments (own: 1) or on the launch's (own: 0). */
#if FPAR__PHASE_ASAN
/* Under AddressSanitizer every inlined loop keeps its locals apart, with
 * redzones, in the row function's frame: the 34 loops of the fast
 * dispatch below took 70 KB, more than a fiber's stack.  One generic loop
 * per argument variant runs every phase there, each call's state in
 * place (always correct; the other loops are only faster). */
#define FPAR__PHASE_DISPATCH(name, step, own, split)                           \
  (void)fpar_uniform_;                                                         \
  return name##_fpar_group_(fpar_it_, fpar_args_, fpar_lm_, fpar_states_,      \
                            fpar_stops_, fpar_resume_, FPAR__PHASE_PLAIN, own, \
                            split);
#else
#define FPAR__PHASE_DISPATCH(name, step, own, split)                           \
  if (fpar_uniform_ && (step) == 1) {                                          \
    switch (fpar_resume_) {                                                    \
      FPAR__PHASE_CASES(name, FPAR__PHASE_UNIFORM, own, split)                 \
    }                                                                          \
  }                                                                            \
  switch (fpar_resume_) {                                                      \
    FPAR__PHASE_CASES(name, FPAR__PHASE_PLAIN, own, split)                     \
  default:                                                                     \
    return name##_fpar_group_(fpar_it_, fpar_args_, fpar_lm_, fpar_states_,    \
                              fpar_stops_, fpar_resume_, FPAR__PHASE_PLAIN,    \
                              own, split);                                     \
  }
#endif

/* Resume indices 0 to 7, where the body's switch folds. */
#define FPAR__PHASE_CASES(name, way, own, split)                               \
  FPAR__PHASE_CASE(name, 0, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 1, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 2, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 3, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 4, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 5, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 6, way, own, split)                                   \
  FPAR__PHASE_CASE(name, 7, way, own, split)

#define FPAR__PHASE_CASE(name, k, way, own, split)                             \
  case k:                                                                      \
    return name##_fpar_group_(fpar_it_, fpar_args_, fpar_lm_, fpar_states_,    \
                              fpar_stops_, k, way, own, split);

/* fpar_a_: the arguments the calls of a phase receive.  Arguments by value
 * are the launch's, which kernels only read: the calls then receive a
 * copy in the runner's frame, which no store of the kernel can touch, so
 * the compiler keeps the fields a kernel reads (a size, a stride, a
 * count) in registers and hoists what it computes from them out of the
 * item loops, as it would for OpenCL's kernel parameters. */
#define FPAR__PHASE_OWN_ARGS(own)                                              \
  unsigned char fpar_own_[FPAR_MAX_ARGS_SIZE] __attribute__((aligned(64)));    \
  void *fpar_a_ = fpar_args_;                                                  \
  if (own) {                                                                   \
    __builtin_memcpy(fpar_own_, fpar_args_, sizeof fpar_own_);                 \
    fpar_a_ = fpar_own_;                                                       \
  }

/* The pragma of a scalar phase kernel's item loops: their iterations
 * (work-items of one phase) carry no dependences, by the OpenCL rules.
 * Lane kernels' loops (over vectors) have none. */
#if defined(__clang__)
#define FPAR__PHASE_SIMD _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define FPAR__PHASE_SIMD _Pragma("GCC ivdep")
#else
#define FPAR__PHASE_SIMD
#endif
#define FPAR__PHASE_NO_SIMD

/* The row function of a phase kernel is compiled at -O3 when its file is
 * compiled with optimization (not for size), whatever the level, as PoCL
 * compiles its work-group functions.  Among what -O2 leaves undone there:
 *  - A phase that closes a loop around barriers starts with the loop's
 *    test, which every work-item takes alike (the OpenCL rules make it
 *    uniform): `for (st->s = 128; st->s > 0; st->s >>= 1) { ...;
 *    FPAR_PHASE_BARRIER(); }` puts `if (st->s > 0)` into the item loop of
 *    its phase, control flow that stops GCC's vectorizer.  Unswitching
 *    (-funswitch-loops) takes a test whose operands are loop-invariant
 *    out of the loop, as PoCL's uniformity analysis does.
 *  - A short loop of the kernel's own inside a phase (`for (k = 0; k < 4;
 *    k++)`) makes the item loop an outer loop, which GCC 12 neither
 *    unswitches nor vectorizes; only at -O3 does it unroll such loops
 *    completely when that makes more code (no flag asks for it).  lud's
 *    port at -O3 without that unrolling: 58 ms, against 18.6 with it and
 *    94 at -O2.
 * Measured on an Intel Xeon (Sapphire Rapids generation), examples/real
 * ports, three alternations: lud 103 -> 18.3 ms, scan 45.4 -> 37.0 ms,
 * the others within 5%; for more code (the suite's text 548 -> 707 KB).
 * -O0 and -Os builds keep their level, with unswitching alone. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) &&       \
    !defined(__OPTIMIZE_SIZE__)
#define FPAR__PHASE_OPTIMIZE __attribute__((optimize("O3")))
#define FPAR__PHASE_OPTIMIZE_SCALAR                                            \
  __attribute__((optimize("O3", "no-tree-loop-vectorize")))
#elif defined(__GNUC__) && !defined(__clang__)
#define FPAR__PHASE_OPTIMIZE __attribute__((optimize("unswitch-loops")))
#else
#define FPAR__PHASE_OPTIMIZE
#endif

/* The split and scalar runners, left out where FPAR_PHASE_ONE_FORM is
 * defined before <fiberpar.h> is included: the row runners take most of
 * a phase kernel's compile time and code (examples/real/lud.c on AMD Zen
 * 5: 8.7 s and 111 KB of text with one form, 19.8 s and 270 KB with
 * two, 25.6 s and 352 KB with three); loops then run the fused form.
 * Lane kernels have neither.
 * The scalar runner is the fused one without loop vectorization, which
 * only GCC's optimizing builds do apart (FPAR__PHASE_OPTIMIZE_SCALAR). */
#ifdef FPAR_PHASE_ONE_FORM
#define FPAR__PHASE_SPLIT_ROWS(name, step)
#define FPAR__PHASE_SPLIT_RUNNER(name, step) NULL
#else
#define FPAR__PHASE_SPLIT_ROWS(name, step)                                     \
  FPAR__PHASE_ROWS(name, name##_fpar_split_rows_, step, 1,                     \
                   FPAR__PHASE_OPTIMIZE, 1)
#define FPAR__PHASE_SPLIT_RUNNER(name, step)                                   \
  ((step) == 1 ? name##_fpar_split_rows_ : NULL)
#endif
#if !defined(FPAR_PHASE_ONE_FORM) && defined(FPAR__PHASE_OPTIMIZE_SCALAR)
#define FPAR__PHASE_SCALAR_ROWS(name, step)                                    \
  FPAR__PHASE_ROWS(name, name##_fpar_scalar_rows_, step, 0,                    \
                   FPAR__PHASE_OPTIMIZE_SCALAR, 0)
#define FPAR__PHASE_SCALAR_RUNNER(name, step)                                  \
  ((step) == 1 ? name##_fpar_scalar_rows_ : NULL)
#else
#define FPAR__PHASE_SCALAR_ROWS(name, step)
#define FPAR__PHASE_SCALAR_RUNNER(name, step) NULL
#endif

#if defined(__GNUC__) && !defined(__clang__)
#define FPAR__PHASE_HOT_LABEL __attribute__((hot, unused))
#else
#define FPAR__PHASE_HOT_LABEL __attribute__((unused))
#endif

/* A declaration with an initializer that a phase's case label jumps past
 * is a value the next phase reads uninitialized: GCC warns of it in C
 * (C++ rejects such a jump). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__cplusplus)
#define FPAR__PHASE_WARN_PUSH                                                  \
  _Pragma("GCC diagnostic push")                                               \
      _Pragma("GCC diagnostic warning \"-Wjump-misses-init\"")
#define FPAR__PHASE_WARN_POP _Pragma("GCC diagnostic pop")
#else
#define FPAR__PHASE_WARN_PUSH
#define FPAR__PHASE_WARN_POP
#endif

/* The row runners of arguments by value run the body on a copy of
 * FPAR_MAX_ARGS_SIZE bytes, which only launches of arguments that fit
 * reach.  GCC cannot know that: a kernel whose arguments, passed by
 * pointer, are a larger struct draws -Warray-bounds from the copy's
 * variant of its runners.  The warning is off in the runners alone; the
 * fiber runner inlines the same body outside them, so a kernel that does
 * index past one of its own arrays is still warned of, once. */
#if defined(__GNUC__) && !defined(__clang__)
#define FPAR__PHASE_RUNNERS_WARN_PUSH                                          \
  _Pragma("GCC diagnostic push")                                               \
      _Pragma("GCC diagnostic ignored \"-Warray-bounds\"")
#define FPAR__PHASE_RUNNERS_WARN_POP _Pragma("GCC diagnostic pop")
#else
#define FPAR__PHASE_RUNNERS_WARN_PUSH
#define FPAR__PHASE_RUNNERS_WARN_POP
#endif

#ifdef __cplusplus
}
#endif

#endif /* FIBERPAR_PHASE_H */
