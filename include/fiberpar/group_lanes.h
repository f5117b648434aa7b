/* SPDX-License-Identifier: MIT */
/* fiberpar/group_lanes.h - work-group collectives of lane-form kernels:
 * one call handles the W work-items of a sub-group at once.
 *
 * Included by <fiberpar/simd.h> (and including it alone includes that).  Names
 * and semantics are those of <fiberpar/group.h> with the lane types:
 *
 *   float fpar_group_reduce_add_vf32(const fpar_lanes *lk, fpar_vf32 v)
 *   fpar_vi32 fpar_group_scan_exclusive_add_vi32(const fpar_lanes *lk,
 *                                                fpar_vi32 v)
 *   double fpar_group_broadcast_vf64(const fpar_lanes *lk, fpar_vf64 v,
 *                                    size_t src)
 *   int fpar_group_any_vmask(const fpar_lanes *lk, fpar_vmask pred)
 *
 * for the types vf32, vf64, vi32 and vu32: broadcasts and reductions
 * return one (scalar) value for the whole group, scans a vector whose
 * active lanes hold the scan of their work-items (lanes past the group's
 * end hold 0).  Lane i of a call is the work-item (x0 + i, y, z): the
 * values are combined in the same local linear id order as in scalar
 * kernels, so lane and scalar kernels give the same results bit for bit.
 * One call costs one rendezvous for the sub-group (W work-items).
 */
#ifndef FIBERPAR_GROUP_LANES_H
#define FIBERPAR_GROUP_LANES_H

#include <fiberpar/simd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FPAR__GROUP_LANE_OP(KIND, TYPE)                                        \
  (FPAR_GROUP_OP(KIND, TYPE) | FPAR_GROUP_LANE_FORM)

/* One lane operation returning R from vector V; the phase halves as in
 * <fiberpar/group.h>. */
#define FPAR__GROUP_LANES_OP(V, R, NAME, KIND, TYPE, ARGS, PASS)               \
  /** \brief The work-group collective NAME of a lane kernel (see the top      \
   *  of <fiberpar/group_lanes.h>). \param lk the calling sub-group.           \
   *  \param v its work-items' values (broadcast: then src, the source's       \
   *  local linear id). \return the group's result for the sub-group. */       \
  FPAR__GROUP_FN R fpar_group_##NAME(const fpar_lanes *lk, V v ARGS) {         \
    R r = FPAR__VZERO(R);                                                      \
    const void *at = fpar_group_collective_at(                                 \
        lk->it, FPAR__GROUP_LANE_OP(KIND, TYPE), &v, PASS);                    \
    if (at != NULL)                                                            \
      __builtin_memcpy(&r, at,                                                 \
                       FPAR__GROUP_IS_SCAN(KIND) &&                            \
                               lk->active != FPAR_SIMD_WIDTH                   \
                           ? lk->active * (sizeof r / FPAR_SIMD_WIDTH)         \
                           : sizeof r);                                        \
    return r;                                                                  \
  }                                                                            \
  FPAR__GROUP_FN void fpar__group_arrive_##NAME(                               \
      const fpar__group_view *pv, const fpar_lanes *lk, V v ARGS) {            \
    (void)pv;                                                                  \
    fpar_group_phase_arrive(lk->it, FPAR__GROUP_LANE_OP(KIND, TYPE), &v,       \
                            PASS);                                             \
  }                                                                            \
  FPAR__GROUP_FN R fpar__group_result_##NAME(const fpar__group_view *pv,       \
                                             const fpar_lanes *lk) {           \
    R r = FPAR__VZERO(R);                                                      \
    (void)pv;                                                                  \
    fpar_group_phase_result(lk->it, FPAR__GROUP_LANE_OP(KIND, TYPE), &r);      \
    return r;                                                                  \
  }

#define FPAR__GROUP_LANES_OPS(V, E, t, TYPE)                                   \
  FPAR__GROUP_LANES_OP(V, E, broadcast_##t, FPAR_GROUP_BROADCAST, TYPE,        \
                       FPAR__GROUP_SRC_ARG, src)                               \
  FPAR__GROUP_LANES_OP(V, E, reduce_add_##t, FPAR_GROUP_REDUCE_ADD, TYPE,      \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, E, reduce_min_##t, FPAR_GROUP_REDUCE_MIN, TYPE,      \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, E, reduce_max_##t, FPAR_GROUP_REDUCE_MAX, TYPE,      \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_inclusive_add_##t,                           \
                       FPAR_GROUP_SCAN_INCLUSIVE_ADD, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_inclusive_min_##t,                           \
                       FPAR_GROUP_SCAN_INCLUSIVE_MIN, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_inclusive_max_##t,                           \
                       FPAR_GROUP_SCAN_INCLUSIVE_MAX, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_exclusive_add_##t,                           \
                       FPAR_GROUP_SCAN_EXCLUSIVE_ADD, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_exclusive_min_##t,                           \
                       FPAR_GROUP_SCAN_EXCLUSIVE_MIN, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)                                 \
  FPAR__GROUP_LANES_OP(V, V, scan_exclusive_max_##t,                           \
                       FPAR_GROUP_SCAN_EXCLUSIVE_MAX, TYPE,                    \
                       FPAR__GROUP_NO_ARGS, 0)

/* For each lane type: fpar_group_broadcast_vT(lk, v, src),
 * fpar_group_reduce_{add,min,max}_vT(lk, v) (one value for the group) and
 * fpar_group_scan_{inclusive,exclusive}_{add,min,max}_vT(lk, v) (a vector),
 * as the scalar forms of <fiberpar/group.h>. */
FPAR__GROUP_LANES_OPS(fpar_vf32, float, vf32, FPAR_GROUP_F32)
FPAR__GROUP_LANES_OPS(fpar_vf64, double, vf64, FPAR_GROUP_F64)
FPAR__GROUP_LANES_OPS(fpar_vi32, int32_t, vi32, FPAR_GROUP_I32)
FPAR__GROUP_LANES_OPS(fpar_vu32, uint32_t, vu32, FPAR_GROUP_U32)
/* fpar_group_any_vmask(lk, pred), fpar_group_all_vmask(lk, pred): 1 if
 * pred is on in any (every) work-item of the group, else 0. */
FPAR__GROUP_LANES_OP(fpar_vmask, int, any_vmask, FPAR_GROUP_ANY, FPAR_GROUP_I32,
                     FPAR__GROUP_NO_ARGS, 0)
FPAR__GROUP_LANES_OP(fpar_vmask, int, all_vmask, FPAR_GROUP_ALL, FPAR_GROUP_I32,
                     FPAR__GROUP_NO_ARGS, 0)

#ifdef __cplusplus
}
#endif

#endif /* FIBERPAR_GROUP_LANES_H */
