/* SPDX-License-Identifier: MIT */
/* fiberpar/group.h - work-group collectives: broadcast, reduce, scan, any
 * and all over the work-items of a group (OpenCL 2.0 work_group_*, SYCL
 * 2020 group algorithms).
 *
 * Included by <fiberpar.h> (and including it alone includes that).  The lane
 * forms are in <fiberpar/group_lanes.h>, which <fiberpar/simd.h> includes.
 *
 * Naming: fpar_group_<operation>_<type>(it, x), where
 *
 *   operation  broadcast (from a local linear id), reduce_add, reduce_min,
 *              reduce_max, scan_inclusive_add, scan_inclusive_min,
 *              scan_inclusive_max, scan_exclusive_add, scan_exclusive_min,
 *              scan_exclusive_max; and fpar_group_any(it, pred),
 *              fpar_group_all(it, pred) for predicates;
 *   type       i32 (int32_t), u32 (uint32_t), i64 (int64_t), u64 (uint64_t,
 *              also for size_t), f32 (float), f64 (double); lane forms
 *              vf32, vf64, vi32, vu32.
 *
 * OpenCL's work_group_reduce_add(x) on a float is
 * fpar_group_reduce_add_f32(it, x), work_group_scan_exclusive_max(x) on a
 * uint fpar_group_scan_exclusive_max_u32(it, x), work_group_broadcast(x,
 * id) fpar_group_broadcast_f32(it, x, id) with id the local linear id
 * (SYCL's group_broadcast, reduce_over_group, inclusive_scan_over_group,
 * exclusive_scan_over_group, any_of_group, all_of_group likewise).
 *
 * Semantics:
 *  - Every work-item of the group must call the same collective (the same
 *    operation and type, and for broadcast the same source id) the same
 *    number of times, as with fpar_barrier(); a collective is a barrier
 *    (local and global memory fences).  A work-item that calls a different
 *    collective or fpar_barrier() while others wait in a collective fails
 *    the launch with FPAR_EBARRIER, one that returns from the kernel while
 *    others wait in one with FPAR_EDIVERGENCE, each naming the work-items
 *    and the collective, instead of hanging or computing garbage.
 *    Collectives are matched by operation and type, not by source line.
 *  - Order: values are combined in local linear id order (dimension 0
 *    fastest), one after the other: a reduction is
 *    (((x0 op x1) op x2) ... op xn-1), scan element i is the same fold of
 *    x0..xi (inclusive) or x0..xi-1 (exclusive).  So floating-point
 *    results do not depend on scheduling, on the number of workers, or on
 *    whether the kernel runs on fibers, as phase loops or in lane form:
 *    they equal the plain C loop over the group's values, bit for bit.
 *  - Integers wrap around modulo 2^32 or 2^64 (signed types too: two's
 *    complement, no undefined overflow).
 *  - min and max of floating-point values are fmin and fmax: a NaN loses
 *    to a number.  Exclusive scans start from the identity: 0 for add,
 *    the type's largest value (+inf for floats) for min and its lowest
 *    (-inf) for max.
 *  - Broadcast returns the value work-item src (local linear id) passed;
 *    src must be less than the group size and the same in every work-item,
 *    else the launch fails with FPAR_EINVAL.
 *  - fpar_group_any() and fpar_group_all() return 1 or 0.
 *
 * Cost: one rendezvous, as one fpar_barrier(): each work-item deposits its
 * value in a slot of the group, the values are combined in local-id order
 * (as they arrive in that order, the rest by the last to arrive), and each
 * work-item reads its result when it resumes.  A
 * hand-written version (values in local memory, a barrier, a combining
 * loop or tree, another barrier) needs two or more.
 *
 * Phase kernels (<fiberpar/phase.h>): a collective is a phase boundary,
 * written FPAR_PHASE_GROUP(dst, it, operation_type, x...):
 *
 *   FPAR_PHASE_GROUP(st->sum, it, reduce_add_f32, x);
 *
 * is `st->sum = fpar_group_reduce_add_f32(it, x);` cut in two: the
 * work-item deposits x and stops, as at FPAR_PHASE_BARRIER(); the runtime
 * combines the group's values between the phases, and the next phase
 * starts by storing the result in dst (a state field, since it lives
 * across the boundary).  Lane phase kernels write the lane forms, e.g.
 * FPAR_PHASE_GROUP(st->s, lk, scan_exclusive_add_vi32, v).  Calling the
 * collectives of this header directly in a phase kernel that runs as
 * loops fails the launch with FPAR_EINVAL.  As loops, a scalar phase
 * kernel's FPAR_PHASE_GROUP is inline code: each call stores its value at
 * its local linear id in slots the group's view points at (broadcast, and
 * lane kernels' forms, call the library), so the phase's item loop has no
 * call in it; that all calls of the phase stopped at the same collective
 * is the phase runner's check of their stops.  As fibers the two halves
 * are library calls.
 *
 * Scoped and hierarchical group functions have no collectives here (their
 * items are loops: reduce with a loop); called there the collectives fail
 * the launch with FPAR_ENOTKERNEL.  Outside a kernel they return 0 and set
 * FPAR_ENOTKERNEL for fpar_last_error().
 */
#ifndef FIBERPAR_GROUP_H
#define FIBERPAR_GROUP_H

#include <fiberpar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a collective computes. */
typedef enum fpar_group_kind {
  FPAR_GROUP_BROADCAST = 1,
  FPAR_GROUP_REDUCE_ADD,
  FPAR_GROUP_REDUCE_MIN,
  FPAR_GROUP_REDUCE_MAX,
  FPAR_GROUP_SCAN_INCLUSIVE_ADD,
  FPAR_GROUP_SCAN_INCLUSIVE_MIN,
  FPAR_GROUP_SCAN_INCLUSIVE_MAX,
  FPAR_GROUP_SCAN_EXCLUSIVE_ADD,
  FPAR_GROUP_SCAN_EXCLUSIVE_MIN,
  FPAR_GROUP_SCAN_EXCLUSIVE_MAX,
  FPAR_GROUP_ANY, /**< int32 predicates: 1 if any is not 0 */
  FPAR_GROUP_ALL  /**< int32 predicates: 1 if none is 0 */
} fpar_group_kind;

/** The element type of a collective. */
typedef enum fpar_group_type {
  FPAR_GROUP_I32 = 0,
  FPAR_GROUP_U32,
  FPAR_GROUP_I64,
  FPAR_GROUP_U64,
  FPAR_GROUP_F32,
  FPAR_GROUP_F64
} fpar_group_type;

/** The operation code of fpar_group_collective(): a kind and a type. */
#define FPAR_GROUP_OP(kind, type) ((unsigned)(kind) << 4 | (unsigned)(type))
/** Or'ed into an operation code by the lane forms, whose names messages
 *  then use (fpar_group_reduce_add_vf32 for fpar_group_reduce_add_f32). */
#define FPAR_GROUP_LANE_FORM 0x100u

/**
 * \brief The engine of the typed collectives below (which are the ones to
 *        call): deposit the caller's values, meet the group's other
 *        work-items in one rendezvous, and read the result.
 * \param it the calling work-item.
 * \param op FPAR_GROUP_OP(kind, type), or'ed with FPAR_GROUP_LANE_FORM
 *        for a lane form.
 * \param in it->lanes values of the type (1 but in lane kernels).
 * \param out receives one value (broadcast, reductions; an int32_t for any
 *        and all) or it->lanes values (scans).
 * \param src broadcast: local linear id of the source; else ignored.
 * \return 0 inside a kernel (faults fail the launch); FPAR_ENOTKERNEL on a
 *         thread that runs no kernel (out is left alone).
 */
FPAR_EXTERN int fpar_group_collective(fpar_item *it, unsigned op,
                                      const void *in, void *out, size_t src);

/**
 * \brief fpar_group_collective() for one value, passed and returned as its
 *        bits: the engine of the scalar forms, whose steady state passes
 *        nothing through memory of the kernel's.
 * \param it the calling work-item.
 * \param op FPAR_GROUP_OP(kind, type).
 * \param x the caller's value: its bytes first in the uint64_t's memory
 *        (memcpy of the value into it).
 * \param src broadcast: local linear id of the source; else ignored.
 * \return the caller's result in the same form (its bytes first); 0
 *         outside a kernel (FPAR_ENOTKERNEL is set).
 */
FPAR_EXTERN uint64_t fpar_group_collective_bits(fpar_item *it, unsigned op,
                                                uint64_t x, size_t src);

/**
 * \brief fpar_group_collective() that leaves the result where it is: the
 *        engine of the lane forms (<fiberpar/group_lanes.h>), which read
 *        it whole in the kernel's code.
 * \param it the calling work-item.
 * \param op as for fpar_group_collective().
 * \param in as for fpar_group_collective().
 * \param src as for fpar_group_collective().
 * \return where the caller's result is (it->lanes values for a scan, else
 *         one), to be read before the caller's next collective; NULL on a
 *         thread that runs no kernel (FPAR_ENOTKERNEL is set).
 */
FPAR_EXTERN const void *fpar_group_collective_at(fpar_item *it, unsigned op,
                                                 const void *in, size_t src);

/**
 * \brief The first half of a collective in a phase kernel
 *        (FPAR_PHASE_GROUP): deposit the caller's values.
 * \param it the calling work-item.
 * \param op FPAR_GROUP_OP(kind, type).
 * \param in it->lanes values of the type.
 * \param src broadcast: local linear id of the source; else ignored.
 * \return 0 inside a kernel; FPAR_ENOTKERNEL on a thread that runs no
 *         kernel.
 */
FPAR_EXTERN int fpar_group_phase_arrive(fpar_item *it, unsigned op,
                                        const void *in, size_t src);

/**
 * \brief The second half of a collective in a phase kernel
 *        (FPAR_PHASE_GROUP): read the result after the phase boundary.
 * \param it the calling work-item.
 * \param op the op given to fpar_group_phase_arrive().
 * \param out as for fpar_group_collective().
 * \return 0 inside a kernel; FPAR_ENOTKERNEL on a thread that runs no
 *         kernel.
 */
FPAR_EXTERN int fpar_group_phase_result(fpar_item *it, unsigned op, void *out);

#define FPAR__GROUP_FN static inline __attribute__((always_inline))
/* The calls FPAR_PHASE_GROUP makes where it is not inline code, out of the
 * way of the phase's loop. */
#define FPAR__GROUP_CALL_FN static __attribute__((noinline, cold, unused))

/* Whether a collective's result is each work-item's own (a scan). */
#define FPAR__GROUP_IS_SCAN(kind)                                              \
  ((kind) >= FPAR_GROUP_SCAN_INCLUSIVE_ADD &&                                  \
   (kind) <= FPAR_GROUP_SCAN_EXCLUSIVE_MAX)

/* The phase slots of values of type T (the 8-byte types have their own). */
#define FPAR__GROUP_PHASE_SLOTS(v, T)                                          \
  (sizeof(T) == 8 ? (v)->phase_wide_slots : (v)->phase_slots)

/* One typed operation: the collective, and the two halves
 * FPAR_PHASE_GROUP uses (fpar__group_arrive_NAME, fpar__group_result_NAME).
 * ARGS are the extra parameters, PASS the source id they give. */
#define FPAR__GROUP_SCALAR_OP(T, NAME, KIND, TYPE, ARGS, PASS)                 \
  /** \brief The work-group collective NAME (see the top of                    \
   *  <fiberpar/group.h>). \param it the calling work-item. \param x its       \
   *  value (broadcast: then src, the source's local linear id).               \
   *  \return the group's result for the caller; 0 outside a kernel. */        \
  FPAR__GROUP_FN T fpar_group_##NAME(fpar_item *it, T x ARGS) {                \
    uint64_t b = 0;                                                            \
    T r;                                                                       \
    __builtin_memcpy(&b, &x, sizeof x);                                        \
    b = fpar_group_collective_bits(it, FPAR_GROUP_OP(KIND, TYPE), b, PASS);    \
    __builtin_memcpy(&r, &b, sizeof r);                                        \
    return r;                                                                  \
  }                                                                            \
  FPAR__GROUP_CALL_FN void fpar__group_arrive_call_##NAME(fpar_item *call,     \
                                                          T x, size_t src) {   \
    fpar_group_phase_arrive(call, FPAR_GROUP_OP(KIND, TYPE), &x, src);         \
  }                                                                            \
  FPAR__GROUP_CALL_FN T fpar__group_result_call_##NAME(fpar_item *call) {      \
    T r = 0;                                                                   \
    fpar_group_phase_result(call, FPAR_GROUP_OP(KIND, TYPE), &r);              \
    return r;                                                                  \
  }                                                                            \
  FPAR__GROUP_FN void fpar__group_arrive_##NAME(const fpar__group_view *v,     \
                                                fpar_item *it, T x ARGS) {     \
    fpar_item call;                                                            \
    if ((KIND) != FPAR_GROUP_BROADCAST && v != NULL) {                         \
      ((T *)FPAR__GROUP_PHASE_SLOTS(v, T))[fpar_local_linear_id(it)] = x;      \
      *v->phase_op = (uint16_t)FPAR_GROUP_OP(KIND, TYPE);                      \
      return;                                                                  \
    }                                                                          \
    fpar__item_call_copy(it, &call);                                           \
    fpar__group_arrive_call_##NAME(&call, x, PASS);                            \
  }                                                                            \
  FPAR__GROUP_FN T fpar__group_result_##NAME(const fpar__group_view *v,        \
                                             fpar_item *it) {                  \
    fpar_item call;                                                            \
    T r;                                                                       \
    if ((KIND) != FPAR_GROUP_BROADCAST && v != NULL) {                         \
      if (FPAR__GROUP_IS_SCAN(KIND))                                           \
        return ((const T *)FPAR__GROUP_PHASE_SLOTS(                            \
            v, T))[fpar_local_linear_id(it)];                                  \
      __builtin_memcpy(&r, &v->phase_result, sizeof r);                        \
      return r;                                                                \
    }                                                                          \
    fpar__item_call_copy(it, &call);                                           \
    return fpar__group_result_call_##NAME(&call);                              \
  }

#define FPAR__GROUP_NO_ARGS
#define FPAR__GROUP_SRC_ARG , size_t src
#define FPAR__GROUP_OPS(T, t, TYPE, OP)                                        \
  OP(T, broadcast_##t, FPAR_GROUP_BROADCAST, TYPE, FPAR__GROUP_SRC_ARG, src)   \
  OP(T, reduce_add_##t, FPAR_GROUP_REDUCE_ADD, TYPE, FPAR__GROUP_NO_ARGS, 0)   \
  OP(T, reduce_min_##t, FPAR_GROUP_REDUCE_MIN, TYPE, FPAR__GROUP_NO_ARGS, 0)   \
  OP(T, reduce_max_##t, FPAR_GROUP_REDUCE_MAX, TYPE, FPAR__GROUP_NO_ARGS, 0)   \
  OP(T, scan_inclusive_add_##t, FPAR_GROUP_SCAN_INCLUSIVE_ADD, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)                                                   \
  OP(T, scan_inclusive_min_##t, FPAR_GROUP_SCAN_INCLUSIVE_MIN, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)                                                   \
  OP(T, scan_inclusive_max_##t, FPAR_GROUP_SCAN_INCLUSIVE_MAX, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)                                                   \
  OP(T, scan_exclusive_add_##t, FPAR_GROUP_SCAN_EXCLUSIVE_ADD, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)                                                   \
  OP(T, scan_exclusive_min_##t, FPAR_GROUP_SCAN_EXCLUSIVE_MIN, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)                                                   \
  OP(T, scan_exclusive_max_##t, FPAR_GROUP_SCAN_EXCLUSIVE_MAX, TYPE,           \
     FPAR__GROUP_NO_ARGS, 0)

/* For each type: fpar_group_broadcast_T(it, x, src), the value of work-item
 * src; fpar_group_reduce_{add,min,max}_T(it, x), the group's sum, minimum
 * or maximum; fpar_group_scan_{inclusive,exclusive}_{add,min,max}_T(it, x),
 * the fold of the values of the work-items before the caller (and, when
 * inclusive, its own) in local linear id order.  See the top of this
 * header for the order, overflow and NaN rules. */
FPAR__GROUP_OPS(int32_t, i32, FPAR_GROUP_I32, FPAR__GROUP_SCALAR_OP)
FPAR__GROUP_OPS(uint32_t, u32, FPAR_GROUP_U32, FPAR__GROUP_SCALAR_OP)
FPAR__GROUP_OPS(int64_t, i64, FPAR_GROUP_I64, FPAR__GROUP_SCALAR_OP)
FPAR__GROUP_OPS(uint64_t, u64, FPAR_GROUP_U64, FPAR__GROUP_SCALAR_OP)
FPAR__GROUP_OPS(float, f32, FPAR_GROUP_F32, FPAR__GROUP_SCALAR_OP)
FPAR__GROUP_OPS(double, f64, FPAR_GROUP_F64, FPAR__GROUP_SCALAR_OP)
/* fpar_group_any(it, pred) and fpar_group_all(it, pred): 1 if pred is not
 * 0 in any (every) work-item of the group, else 0. */
FPAR__GROUP_SCALAR_OP(int, any, FPAR_GROUP_ANY, FPAR_GROUP_I32,
                      FPAR__GROUP_NO_ARGS, 0)
FPAR__GROUP_SCALAR_OP(int, all, FPAR_GROUP_ALL, FPAR_GROUP_I32,
                      FPAR__GROUP_NO_ARGS, 0)

/** A collective as a phase boundary of a phase kernel: what
 *  `dst = fpar_group_OPERATION(it, ...)` is in other kernels (see the top
 *  of this header).  OPERATION is the name after fpar_group_, e.g.
 *  reduce_add_f32, broadcast_u64 (then ... is x, src) or any; dst is
 *  usually a field of the state. */
#define FPAR_PHASE_GROUP(dst, it, OPERATION, ...)                              \
  FPAR__PHASE_GROUP(__COUNTER__, __LINE__, dst, it, OPERATION, __VA_ARGS__)

#define FPAR__PHASE_GROUP(n, line, dst, it, OPERATION, ...)                    \
  do {                                                                         \
    fpar__group_arrive_##OPERATION(fpar_pv_, it, __VA_ARGS__);                 \
    FPAR__PHASE_STOP(n, line);                                                 \
    (dst) = fpar__group_result_##OPERATION(fpar_pv_, it);                      \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* FIBERPAR_GROUP_H */
