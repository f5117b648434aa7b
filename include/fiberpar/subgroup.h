/* SPDX-License-Identifier: MIT */
/* fiberpar/subgroup.h - sub-groups of nd_range kernels: their queries and
 * operations (OpenCL's cl_khr_subgroups and its shuffle and ballot
 * extensions, SYCL 2020's sub_group).
 *
 * Included by <fiberpar.h> (and including it alone includes that).
 *
 * What a sub-group is: fpar_sub_group_max_size() = S consecutive
 * work-items along dimension 0 of one row (one (y, z) of the group), the
 * same as the W lanes of a lane kernel (<fiberpar/simd.h>), where S is
 * W.  A row of R work-items has ceil(R / S) sub-groups; when S does not
 * divide R its last sub-group is partial: R % S work-items (a group of 100
 * with S = 16 has sub-groups 0-5 of 16 and sub-group 6 of 4).  Sub-groups
 * are numbered row after row (fpar_sub_group_id()), and a work-item's
 * sub-group local id is local_id[0] % S.  S is fpar_launch_desc.
 * subgroup_size, 1 to FPAR_MAX_SUB_GROUP_SIZE; by default the runtime's
 * (fpar_runtime_subgroup_size(), the SIMD width, capped at
 * FPAR_MAX_SUB_GROUP_SIZE); a lane kernel's is its W.
 *
 * The queries are inline (and exported, see FPAR_QUERY) and work in every
 * nd_range kernel: fiber, lane (through lk->it: lane 0's values, which
 * are the sub-group's) and phase kernels.
 *
 * The operations (shuffles, broadcast, ballot, reductions) are for
 * kernels with one work-item per call, run on fibers.  Each is a
 * rendezvous of the sub-group's work-items only: every work-item of the
 * sub-group must make the same call (the same operation on the same type;
 * arguments documented as "the same in every work-item" must agree), in
 * the same order, as on a GPU.  The fibers of a sub-group run one after
 * another on the group's worker: each arrival switches to the next member
 * and the last one combines the values and resumes the first, so an
 * operation costs one fiber switch per work-item (a barrier's price, paid
 * by the sub-group alone: other sub-groups do not take part).  The fast
 * path needs every sub-group whole and S a power of two: S divides the
 * group's extent in dimension 0 (and the last group's, where the launch's
 * extent does not divide); other launches take a slower one.  A
 * sub-group of one work-item needs no switch.
 *
 * Naming, as the work-group collectives': fpar_sub_group_<operation>_<type>
 * (it, x) with type f32 (float), f64 (double), i32 (int32_t) or u32
 * (uint32_t), and fpar_sub_group_ballot(it, pred); the lane forms of
 * <fiberpar/simd.h> take the fpar_lanes and name the lane vector type
 * (fpar_sub_group_reduce_add_vf32(lk, v), fpar_sub_group_ballot_vmask(lk,
 * m)).  OpenCL's sub_group_reduce_add(x) on a float is
 * fpar_sub_group_reduce_add_f32(it, x), sub_group_shuffle_xor(x, m) on a
 * uint fpar_sub_group_shuffle_xor_u32(it, x, m).
 *
 * What fails the launch instead of hanging or computing garbage:
 *  - FPAR_EDIVERGENCE: work-items of one sub-group at different
 *    operations, or some at an operation while others wait at a barrier
 *    or have returned from the kernel; the message names the work-items,
 *    the operation and the barrier's "file:line";
 *  - FPAR_EINVAL: an argument documented as "the same in every work-item"
 *    that differs (the message names the work-item, the argument and both
 *    values), a lane outside the sub-group; an operation called in a lane
 *    kernel (use the lane forms) or in a phase kernel (none there);
 *  - FPAR_ENOTSUP: a sub-group operation reached by a work-item other than
 *    work-item 0 of a group whose work-item 0 returned without reaching a
 *    barrier or a sub-group operation: work-items run as a plain loop until
 *    work-item 0 reaches one (lazy fibers), and only then become fibers;
 *  - FPAR_ENOTKERNEL: called by a scoped or hierarchical group function;
 *    on a thread that runs no kernel the call sets FPAR_ENOTKERNEL in
 *    fpar_last_error() and returns 0.
 */
#ifndef FIBERPAR_SUBGROUP_H
#define FIBERPAR_SUBGROUP_H

#include <fiberpar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest sub-group (fpar_launch_desc.subgroup_size): the bits of a
 *  ballot. */
#define FPAR_MAX_SUB_GROUP_SIZE 64

/** \brief Work-items per full sub-group (OpenCL get_max_sub_group_size).
 *  \param it the work-item. \return S. */
FPAR_QUERY size_t fpar_sub_group_max_size(const fpar_item *it) {
  return it->geometry->sub_group_size;
}

/* x / s and x % s for a sub-group size s (a variable, read twice): a
 * shift and a mask when s is a power of two, as every size the runtime
 * picks is, else a division, which costs tens of cycles in queries a
 * kernel may make once per work-item.  Macros, since the queries are
 * extern inline (FPAR_QUERY) and may not call static functions. */
#define FPAR__SUB_GROUP_DIV(x, s)                                              \
  (((s) & ((s)-1)) == 0 ? (x) >> __builtin_ctzl(s) : (x) / (s))
#define FPAR__SUB_GROUP_MOD(x, s)                                              \
  (((s) & ((s)-1)) == 0 ? (x) & ((s)-1) : (x) % (s))

/** \brief The work-item's id within its sub-group (OpenCL
 *  get_sub_group_local_id). \param it the work-item.
 *  \return local_id[0] % S. */
FPAR_QUERY size_t fpar_sub_group_local_id(const fpar_item *it) {
  size_t s = fpar_sub_group_max_size(it);

  return FPAR__SUB_GROUP_MOD(fpar_local_id(it, 0), s);
}
/** \brief Work-items in the work-item's sub-group (OpenCL
 *  get_sub_group_size): S, or fewer in the last sub-group of a row.
 *  \param it the work-item. \return the size. */
FPAR_QUERY size_t fpar_sub_group_size(const fpar_item *it) {
  size_t s = fpar_sub_group_max_size(it);
  size_t left = fpar_local_range(it, 0) -
                (fpar_local_id(it, 0) - fpar_sub_group_local_id(it));

  return left < s ? left : s;
}
/** \brief Sub-groups in the work-group (OpenCL get_num_sub_groups).
 *  \param it the work-item. \return ceil(rows' length / S) x rows. */
FPAR_QUERY size_t fpar_num_sub_groups(const fpar_item *it) {
  size_t s = fpar_sub_group_max_size(it);

  return FPAR__SUB_GROUP_DIV(fpar_local_range(it, 0) + s - 1, s) *
         fpar_local_range(it, 1) * fpar_local_range(it, 2);
}
/** \brief The sub-group's id within the work-group (OpenCL
 *  get_sub_group_id): row after row, along dimension 0 within a row.
 *  \param it the work-item. \return the id. */
FPAR_QUERY size_t fpar_sub_group_id(const fpar_item *it) {
  size_t s = fpar_sub_group_max_size(it);
  size_t row =
      fpar_local_id(it, 1) + fpar_local_range(it, 1) * fpar_local_id(it, 2);

  return row * FPAR__SUB_GROUP_DIV(fpar_local_range(it, 0) + s - 1, s) +
         FPAR__SUB_GROUP_DIV(fpar_local_id(it, 0), s);
}

/** \brief The sub-group's votes (cl_khr_subgroup_ballot): bit k is set
 *  when \p pred is non-zero in the work-item of sub-group local id k.
 *  \param it the calling work-item. \param pred its predicate.
 *  \return the mask, the same in every work-item of the sub-group (bits
 *  from fpar_sub_group_size() up are 0). */
FPAR_EXTERN uint64_t fpar_sub_group_ballot(fpar_item *it, int pred);

/* ---- float ---- */
/** \brief Lane \p lane's value of \p v (OpenCL sub_group_shuffle).
 *  \param it the calling work-item. \param v its value.
 *  \param lane the sub-group local id to read, below fpar_sub_group_size().
 *  \return that work-item's \p v. */
FPAR_EXTERN float fpar_sub_group_shuffle_f32(fpar_item *it, float v,
                                             size_t lane);
/** \brief The value of sub-group local id (own id ^ \p mask), or its own
 *  where that id is outside the sub-group.  \param it the calling
 *  work-item. \param v its value. \param mask the same in every
 *  work-item. \return the exchanged value. */
FPAR_EXTERN float fpar_sub_group_shuffle_xor_f32(fpar_item *it, float v,
                                                 unsigned mask);
/** \brief The value of sub-group local id (own id - \p delta), or its own
 *  below \p delta.  \param it the calling work-item. \param v its value.
 *  \param delta the same in every work-item. \return the shifted value. */
FPAR_EXTERN float fpar_sub_group_shuffle_up_f32(fpar_item *it, float v,
                                                unsigned delta);
/** \brief The value of sub-group local id (own id + \p delta), or its own
 *  where that is past the sub-group.  \param it the calling work-item.
 *  \param v its value. \param delta the same in every work-item.
 *  \return the shifted value. */
FPAR_EXTERN float fpar_sub_group_shuffle_down_f32(fpar_item *it, float v,
                                                  unsigned delta);
/** \brief Every work-item gets lane \p lane's value.  \param it the
 *  calling work-item. \param v its value. \param lane the same in every
 *  work-item, below fpar_sub_group_size(). \return that value. */
FPAR_EXTERN float fpar_sub_group_broadcast_f32(fpar_item *it, float v,
                                               size_t lane);
/** \brief Sum over the sub-group (in sub-group local id order).  \param it the
 * calling work-item. \param v its value. \return the sum, in every work-item.
 */
FPAR_EXTERN float fpar_sub_group_reduce_add_f32(fpar_item *it, float v);
/** \brief Minimum over the sub-group (fmin: a NaN loses to a number).  \param
 * it the calling work-item. \param v its value. \return the minimum, in every
 *  work-item. */
FPAR_EXTERN float fpar_sub_group_reduce_min_f32(fpar_item *it, float v);
/** \brief Maximum over the sub-group (fmax: a NaN loses to a number).  \param
 * it the calling work-item. \param v its value. \return the maximum, in every
 *  work-item. */
FPAR_EXTERN float fpar_sub_group_reduce_max_f32(fpar_item *it, float v);

/* ---- double ---- */
/** \brief Lane \p lane's value of \p v (OpenCL sub_group_shuffle).
 *  \param it the calling work-item. \param v its value.
 *  \param lane the sub-group local id to read, below fpar_sub_group_size().
 *  \return that work-item's \p v. */
FPAR_EXTERN double fpar_sub_group_shuffle_f64(fpar_item *it, double v,
                                              size_t lane);
/** \brief The value of sub-group local id (own id ^ \p mask), or its own
 *  where that id is outside the sub-group.  \param it the calling
 *  work-item. \param v its value. \param mask the same in every
 *  work-item. \return the exchanged value. */
FPAR_EXTERN double fpar_sub_group_shuffle_xor_f64(fpar_item *it, double v,
                                                  unsigned mask);
/** \brief The value of sub-group local id (own id - \p delta), or its own
 *  below \p delta.  \param it the calling work-item. \param v its value.
 *  \param delta the same in every work-item. \return the shifted value. */
FPAR_EXTERN double fpar_sub_group_shuffle_up_f64(fpar_item *it, double v,
                                                 unsigned delta);
/** \brief The value of sub-group local id (own id + \p delta), or its own
 *  where that is past the sub-group.  \param it the calling work-item.
 *  \param v its value. \param delta the same in every work-item.
 *  \return the shifted value. */
FPAR_EXTERN double fpar_sub_group_shuffle_down_f64(fpar_item *it, double v,
                                                   unsigned delta);
/** \brief Every work-item gets lane \p lane's value.  \param it the
 *  calling work-item. \param v its value. \param lane the same in every
 *  work-item, below fpar_sub_group_size(). \return that value. */
FPAR_EXTERN double fpar_sub_group_broadcast_f64(fpar_item *it, double v,
                                                size_t lane);
/** \brief Sum over the sub-group (in sub-group local id order).  \param it the
 * calling work-item. \param v its value. \return the sum, in every work-item.
 */
FPAR_EXTERN double fpar_sub_group_reduce_add_f64(fpar_item *it, double v);
/** \brief Minimum over the sub-group (fmin: a NaN loses to a number).  \param
 * it the calling work-item. \param v its value. \return the minimum, in every
 *  work-item. */
FPAR_EXTERN double fpar_sub_group_reduce_min_f64(fpar_item *it, double v);
/** \brief Maximum over the sub-group (fmax: a NaN loses to a number).  \param
 * it the calling work-item. \param v its value. \return the maximum, in every
 *  work-item. */
FPAR_EXTERN double fpar_sub_group_reduce_max_f64(fpar_item *it, double v);

/* ---- int32_t ---- */
/** \brief Lane \p lane's value of \p v (OpenCL sub_group_shuffle).
 *  \param it the calling work-item. \param v its value.
 *  \param lane the sub-group local id to read, below fpar_sub_group_size().
 *  \return that work-item's \p v. */
FPAR_EXTERN int32_t fpar_sub_group_shuffle_i32(fpar_item *it, int32_t v,
                                               size_t lane);
/** \brief The value of sub-group local id (own id ^ \p mask), or its own
 *  where that id is outside the sub-group.  \param it the calling
 *  work-item. \param v its value. \param mask the same in every
 *  work-item. \return the exchanged value. */
FPAR_EXTERN int32_t fpar_sub_group_shuffle_xor_i32(fpar_item *it, int32_t v,
                                                   unsigned mask);
/** \brief The value of sub-group local id (own id - \p delta), or its own
 *  below \p delta.  \param it the calling work-item. \param v its value.
 *  \param delta the same in every work-item. \return the shifted value. */
FPAR_EXTERN int32_t fpar_sub_group_shuffle_up_i32(fpar_item *it, int32_t v,
                                                  unsigned delta);
/** \brief The value of sub-group local id (own id + \p delta), or its own
 *  where that is past the sub-group.  \param it the calling work-item.
 *  \param v its value. \param delta the same in every work-item.
 *  \return the shifted value. */
FPAR_EXTERN int32_t fpar_sub_group_shuffle_down_i32(fpar_item *it, int32_t v,
                                                    unsigned delta);
/** \brief Every work-item gets lane \p lane's value.  \param it the
 *  calling work-item. \param v its value. \param lane the same in every
 *  work-item, below fpar_sub_group_size(). \return that value. */
FPAR_EXTERN int32_t fpar_sub_group_broadcast_i32(fpar_item *it, int32_t v,
                                                 size_t lane);
/** \brief Sum over the sub-group (wrapping).  \param it the calling
 *  work-item. \param v its value. \return the sum, in every work-item. */
FPAR_EXTERN int32_t fpar_sub_group_reduce_add_i32(fpar_item *it, int32_t v);
/** \brief Minimum over the sub-group (the smallest).  \param it the calling
 *  work-item. \param v its value. \return the minimum, in every
 *  work-item. */
FPAR_EXTERN int32_t fpar_sub_group_reduce_min_i32(fpar_item *it, int32_t v);
/** \brief Maximum over the sub-group (the largest).  \param it the calling
 *  work-item. \param v its value. \return the maximum, in every
 *  work-item. */
FPAR_EXTERN int32_t fpar_sub_group_reduce_max_i32(fpar_item *it, int32_t v);

/* ---- uint32_t ---- */
/** \brief Lane \p lane's value of \p v (OpenCL sub_group_shuffle).
 *  \param it the calling work-item. \param v its value.
 *  \param lane the sub-group local id to read, below fpar_sub_group_size().
 *  \return that work-item's \p v. */
FPAR_EXTERN uint32_t fpar_sub_group_shuffle_u32(fpar_item *it, uint32_t v,
                                                size_t lane);
/** \brief The value of sub-group local id (own id ^ \p mask), or its own
 *  where that id is outside the sub-group.  \param it the calling
 *  work-item. \param v its value. \param mask the same in every
 *  work-item. \return the exchanged value. */
FPAR_EXTERN uint32_t fpar_sub_group_shuffle_xor_u32(fpar_item *it, uint32_t v,
                                                    unsigned mask);
/** \brief The value of sub-group local id (own id - \p delta), or its own
 *  below \p delta.  \param it the calling work-item. \param v its value.
 *  \param delta the same in every work-item. \return the shifted value. */
FPAR_EXTERN uint32_t fpar_sub_group_shuffle_up_u32(fpar_item *it, uint32_t v,
                                                   unsigned delta);
/** \brief The value of sub-group local id (own id + \p delta), or its own
 *  where that is past the sub-group.  \param it the calling work-item.
 *  \param v its value. \param delta the same in every work-item.
 *  \return the shifted value. */
FPAR_EXTERN uint32_t fpar_sub_group_shuffle_down_u32(fpar_item *it, uint32_t v,
                                                     unsigned delta);
/** \brief Every work-item gets lane \p lane's value.  \param it the
 *  calling work-item. \param v its value. \param lane the same in every
 *  work-item, below fpar_sub_group_size(). \return that value. */
FPAR_EXTERN uint32_t fpar_sub_group_broadcast_u32(fpar_item *it, uint32_t v,
                                                  size_t lane);
/** \brief Sum over the sub-group (wrapping).  \param it the calling
 *  work-item. \param v its value. \return the sum, in every work-item. */
FPAR_EXTERN uint32_t fpar_sub_group_reduce_add_u32(fpar_item *it, uint32_t v);
/** \brief Minimum over the sub-group (the smallest).  \param it the calling
 *  work-item. \param v its value. \return the minimum, in every
 *  work-item. */
FPAR_EXTERN uint32_t fpar_sub_group_reduce_min_u32(fpar_item *it, uint32_t v);
/** \brief Maximum over the sub-group (the largest).  \param it the calling
 *  work-item. \param v its value. \return the maximum, in every
 *  work-item. */
FPAR_EXTERN uint32_t fpar_sub_group_reduce_max_u32(fpar_item *it, uint32_t v);

#ifdef __cplusplus
}
#endif

#endif /* FIBERPAR_SUBGROUP_H */
