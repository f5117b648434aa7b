/* SPDX-License-Identifier: MIT */
/* subgroup_check.c - the faults of sub-group operations (see
 * subgroup_check.h): each names the work-items, the operation and what
 * went wrong. */
#include <inttypes.h>
#include <stdio.h>

#include "sched/base/error.h"
#include "sched/group/abort.h"
#include "sched/group/collective_combine.h"
#include "sched/group/message.h"
#include "sched/group/subgroup_check.h"
#include "sched/group/subgroup_site.h"

void fpar__sg_refused(fpar__worker *w, const fpar_item *it, const char *name) {
  const fpar__launch *l = w->launch;

  if (l == NULL || l->spec.model == FPAR__SCOPED ||
      l->spec.model == FPAR__HIERARCHICAL)
    fpar__group_abort(w, FPAR_ENOTKERNEL,
                      "%s called in a scoped or hierarchical group function; "
                      "sub-group operations are for nd_range kernels",
                      name);
  if (l->spec.lanes > 1)
    fpar__group_abort(w, FPAR_EINVAL,
                      "work-items %zu- called %s in a lane kernel; use the "
                      "lane forms of <fiberpar/simd.h> "
                      "(fpar_sub_group_reduce_add_vf32(lk, v), "
                      "fpar_vf32_shuffle() ...)",
                      fpar_local_linear_id(it), name);
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu called %s in a phase kernel; phase "
                    "kernels have no sub-group operations (write the "
                    "kernel with fpar_barrier())",
                    fpar_local_linear_id(it), name);
}

uint64_t fpar__sg_outside(const char *name) {
  fpar__set_error(FPAR_ENOTKERNEL, "%s called on a thread that runs no kernel",
                  name);
  return 0;
}

void fpar__sg_bad_lane(fpar__worker *w, size_t i, uint64_t a, const char *name,
                       size_t n) {
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu passed lane %" PRIu64 " to %s but its "
                    "sub-group has %zu work-items",
                    i, a, name, n);
}

void fpar__sg_after_loop(fpar__worker *w, size_t i, size_t j,
                         const char *name) {
  char items[64];

  if (j > 0) {
    fpar__describe_items(items, sizeof items, i - j, i - 1,
                         "of its sub-group returned",
                         "of its sub-group returned");
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu reached %s after %s from the kernel "
                      "without reaching it",
                      i, name, items);
  }
  fpar__group_abort(w, FPAR_ENOTSUP,
                    "work-item %zu reached %s after work-item 0 returned from "
                    "the kernel without reaching a barrier or a sub-group "
                    "operation: the group ran as a loop (lazy fibers), and "
                    "sub-group operations need fibers; let work-item 0 reach "
                    "one first",
                    i, name);
}

void fpar__sg_check_member(fpar__worker *w, size_t i, size_t j, unsigned kind,
                           unsigned type, uint64_t u, const char *name) {
  const fpar__group_run *g = &w->run;
  const fpar__subgroup_run *sg = fpar__subgroup_of(w);
  const char *arg = fpar__sg_uniform_name(kind);
  char items[64], other[128];

  if (g->site != FPAR__SITE_SUBGROUP) {
    /* They arrived at the group's rendezvous instead. */
    if (g->site == FPAR__SITE_EXIT) {
      fpar__describe_items(items, sizeof items, i - j, i - 1,
                           "of its sub-group returned",
                           "of its sub-group returned");
      fpar__group_abort(w, FPAR_EDIVERGENCE,
                        "work-item %zu waits at %s but %s from the kernel "
                        "without reaching it",
                        i, name, items);
    }
    fpar__describe_items(items, sizeof items, i - j, i - 1,
                         "of its sub-group waits", "of its sub-group wait");
    fpar__group_abort(w, FPAR_EDIVERGENCE,
                      "work-item %zu waits at %s while %s at %s", i, name,
                      items, fpar__site_what(other, sizeof other, g->site));
  }
  if (fpar__sg_key_kind(sg->op) != kind || fpar__sg_key_type(sg->op) != type) {
    snprintf(other, sizeof other, "waits at %s", name);
    fpar__subgroup_diverged(w, i, other);
  }
  /* Only the uniform argument is left to differ. */
  fpar__group_abort(w, FPAR_EINVAL,
                    "work-item %zu passed %s %" PRIu64 " to %s but "
                    "work-item %zu passed %" PRIu64
                    ": it must be the same in every work-item of the "
                    "sub-group",
                    i, arg, u, name, i - j, fpar__sg_key_uniform(sg->op));
}
