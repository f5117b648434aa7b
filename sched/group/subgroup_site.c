/* SPDX-License-Identifier: MIT */
/* subgroup_site.c - a pending sub-group operation as the group's other
 * rendezvous see it. */
#include "sched/group/subgroup_site.h"
#include "sched/group/abort.h"
#include "sched/group/message.h"

const char fpar__site_subgroup[] = "(a sub-group operation)";

/* "fpar_sub_group_KIND_TYPE", by kind and type. */
#define FPAR__SG_NAMES(kind)                                                   \
  {                                                                            \
    "fpar_sub_group_" kind "_f32", "fpar_sub_group_" kind "_f64",              \
        "fpar_sub_group_" kind "_i32", "fpar_sub_group_" kind "_u32"           \
  }
static const char *const fpar__sg_names[][4] = {
    FPAR__SG_NAMES("shuffle"),
    FPAR__SG_NAMES("shuffle_xor"),
    FPAR__SG_NAMES("shuffle_up"),
    FPAR__SG_NAMES("shuffle_down"),
    FPAR__SG_NAMES("broadcast"),
    {"fpar_sub_group_ballot", "fpar_sub_group_ballot", "fpar_sub_group_ballot",
     "fpar_sub_group_ballot"},
    FPAR__SG_NAMES("reduce_add"),
    FPAR__SG_NAMES("reduce_min"),
    FPAR__SG_NAMES("reduce_max")};

const char *fpar__subgroup_name(unsigned kind, unsigned type) {
  return fpar__sg_names[kind][type];
}

_Noreturn void fpar__subgroup_diverged(fpar__worker *w, size_t item,
                                       const char *what) {
  const fpar_nd_geometry *geo = w->run.geo;
  uint64_t op = fpar__subgroup_of(w)->op;
  char items[64];
  /* The waiting members are the ones of item's sub-group before it. */
  size_t j = item % geo->local_range[0] % geo->sub_group_size;

  fpar__describe_items(items, sizeof items, item - j, item - 1,
                       "of its sub-group waits", "of its sub-group wait");
  fpar__group_abort(
      w, FPAR_EDIVERGENCE, "work-item %zu %s while %s at %s", item, what, items,
      fpar__sg_names[fpar__sg_key_kind(op)][fpar__sg_key_type(op)]);
}
