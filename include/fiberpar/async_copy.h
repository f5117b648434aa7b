/* SPDX-License-Identifier: MIT */
/* fiberpar/async_copy.h - copies made by a whole work-group (OpenCL's
 * async_work_group_copy, async_work_group_strided_copy and
 * wait_group_events).
 *
 * Included by <fiberpar.h> (and including it alone includes that).
 *
 * Every work-item of the group makes the same calls in the same order with
 * the same arguments, as in OpenCL: the k-th copy call of each work-item
 * is the group's copy k.  All work-items of a group run on one worker, so
 * the first work-item to make copy k does the whole copy there and then
 * (one memcpy for a contiguous copy) and the others only check that their
 * arguments agree: a copy costs the copy plus a few comparisons per
 * work-item, and no rendezvous.  fpar_wait_group_events() checks the
 * events and returns: the copies it waits for are complete.  Memory
 * semantics are OpenCL's: the source must not be written and the
 * destination not read or written by the group between the copy call and
 * the wait; data the group's work-items wrote into the source must be made
 * visible by a barrier before the copy (as on a GPU, a local-to-global
 * copy follows a barrier).  Global and local memory are any memory here:
 * the copy goes either way, or between two buffers of either kind.
 *
 * Works in fiber kernels, in barrier-free groups that run as a loop, in
 * lane kernels (one call per sub-group, with lk->it) and in phase kernels
 * (call it after FPAR_PHASE_BEGIN(): the prologue runs at every phase, so
 * a copy there would be made again in each phase).  A work-item that
 * passes other arguments than the first caller, or waits for an event it
 * did not get, fails the launch with FPAR_EINVAL naming the work-item, the
 * copy and the argument; a scoped or hierarchical group function gets
 * FPAR_ENOTKERNEL, and so does a call on a thread that runs no kernel
 * (which returns 0 and sets fpar_last_error()).
 */
#ifndef FIBERPAR_ASYNC_COPY_H
#define FIBERPAR_ASYNC_COPY_H

#include <fiberpar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A group copy's event (OpenCL event_t): the number of the group's first
 *  copy it stands for, from 1; 0 is "no event". */
typedef uint32_t fpar_copy_event;

/**
 * \brief Copy \p num elements of \p elem_size bytes from \p src to \p dst
 *        for the whole group (OpenCL async_work_group_copy).
 * \param it the calling work-item.
 * \param dst destination (local or global memory).
 * \param src source; the ranges must not overlap.
 * \param num elements.
 * \param elem_size bytes per element.
 * \param event 0, or an event of an earlier copy of the group to which
 *        this copy is added.
 * \return \p event if it is not 0, else the copy's own event; 0 (with
 *         FPAR_ENOTKERNEL) on a thread that runs no kernel.
 */
FPAR_EXTERN fpar_copy_event fpar_async_work_group_copy(fpar_item *it, void *dst,
                                                       const void *src,
                                                       size_t num,
                                                       size_t elem_size,
                                                       fpar_copy_event event);

/**
 * \brief Strided group copy (OpenCL async_work_group_strided_copy):
 *        element i goes from src + i * src_stride elements to dst + i *
 *        dst_stride elements.  OpenCL's global-to-local form is dst_stride
 *        1 and src_stride its stride, its local-to-global form the
 *        reverse.
 * \param it the calling work-item.
 * \param dst destination.
 * \param src source; the ranges must not overlap.
 * \param num elements.
 * \param elem_size bytes per element.
 * \param dst_stride elements between destination elements, at least 1.
 * \param src_stride elements between source elements, at least 1.
 * \param event 0, or an event of an earlier copy of the group.
 * \return as fpar_async_work_group_copy().
 */
FPAR_EXTERN fpar_copy_event fpar_async_work_group_strided_copy(
    fpar_item *it, void *dst, const void *src, size_t num, size_t elem_size,
    size_t dst_stride, size_t src_stride, fpar_copy_event event);

/**
 * \brief Wait for group copies (OpenCL wait_group_events).  Every
 *        work-item of the group makes the same call with the same events.
 * \param it the calling work-item.
 * \param num_events events in \p events, at least 1.
 * \param events events the work-item got from its copy calls.
 * \return 0; FPAR_ENOTKERNEL on a thread that runs no kernel.
 */
FPAR_EXTERN int fpar_wait_group_events(fpar_item *it, int num_events,
                                       const fpar_copy_event *events);

#ifdef __cplusplus
}
#endif

#endif /* FIBERPAR_ASYNC_COPY_H */
