/* SPDX-License-Identifier: MIT */
/* range.c - range checks and the runtime's choice of work-group size. */
#include "lib/range.h"
#include "sched/base/error.h"

size_t fpar__range_volume(const fpar_range *r) {
  return r->size[0] * r->size[1] * r->size[2];
}

int fpar__range_check(fpar_range *g, const char *what) {
  unsigned d;
  size_t volume = 1;

  if (g->dims < 1 || g->dims > 3)
    return fpar__set_error(FPAR_EDIM,
                           "%s has %u dimensions; 1, 2 or 3 are allowed", what,
                           g->dims);
  for (d = 0; d < 3; d++) {
    if (d >= g->dims)
      g->size[d] = 1;
    if (g->size[d] == 0)
      return fpar__set_error(FPAR_EEMPTY, "%s is empty in dimension %u", what,
                             d);
    if (__builtin_mul_overflow(volume, g->size[d], &volume))
      return fpar__set_error(FPAR_EINVAL, "%s has more than SIZE_MAX items",
                             what);
  }
  return 0;
}

int fpar__range_check_offset(const fpar_range *g, const size_t offset[3]) {
  size_t end;
  unsigned d;

  if ((offset[0] | offset[1] | offset[2]) == 0)
    return 0; /* the usual launch: nothing can overflow */
  for (d = 0; d < 3; d++) {
    if (d >= g->dims && offset[d] != 0)
      return fpar__set_error(FPAR_EINVAL,
                             "global_offset[%u] is %zu but the global range "
                             "has %u dimensions",
                             d, offset[d], g->dims);
    if (__builtin_add_overflow(offset[d], g->size[d], &end))
      return fpar__set_error(FPAR_EINVAL,
                             "global_offset[%u] %zu + global range %zu "
                             "exceeds SIZE_MAX",
                             d, offset[d], g->size[d]);
  }
  return 0;
}

/* Largest divisor of n that is at most cap (cap >= 1). */
static size_t fpar__largest_divisor(size_t n, size_t cap) {
  size_t d;

  for (d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0)
      return d;
  return 1;
}

/* The smallest divisor of n from lo to cap, or 0 if there is none. */
static size_t fpar__smallest_divisor_from(size_t n, size_t lo, size_t cap) {
  size_t d;

  for (d = lo; d <= cap && d <= n; d++)
    if (n % d == 0)
      return d;
  return 0;
}

/* Fewest work-items along dimension 0 worth a group of their own: below
 * it the group's fixed cost outweighs the loop over its rows. */
#define FPAR__MIN_ROW 16

/* Like Aparapi: a size that divides the global range, at most `preferred`
 * work-items, and small enough that every worker gets a few groups.
 * Dimension 0 comes first and gets long rows: whole rows (up to
 * `preferred`) whenever the range has two rows per worker, however small
 * that makes the number of groups, since a runner runs a group's rows as
 * one loop nest and its cost per group, not per row, is what groups
 * add; and never rows shorter than FPAR__MIN_ROW when a divisor allows
 * longer ones (a 1-D range of 1009 work-items is one group, not 1009). */
static void fpar__range_choose_local(const fpar_range *g, fpar_range *l,
                                     size_t preferred, size_t max_group,
                                     unsigned num_workers) {
  size_t volume = fpar__range_volume(g), rows = volume / g->size[0];
  size_t most = preferred < max_group ? preferred : max_group;
  size_t cap = most, spread = volume / (4 * (size_t)num_workers), row;
  unsigned d;

  if (spread < cap)
    cap = spread ? spread : 1;
  row = rows >= 2 * (size_t)num_workers && cap < g->size[0] ? most : cap;
  l->dims = g->dims;
  l->size[0] = fpar__largest_divisor(g->size[0], row);
  if (l->size[0] < FPAR__MIN_ROW &&
      (row = fpar__smallest_divisor_from(g->size[0], FPAR__MIN_ROW, most)))
    l->size[0] = row;
  cap = cap > l->size[0] ? cap / l->size[0] : 1;
  for (d = 1; d < 3; d++) {
    l->size[d] = fpar__largest_divisor(g->size[d], cap);
    cap /= l->size[d];
  }
}

int fpar__range_resolve_local(const fpar_range *g, fpar_range *l,
                              size_t preferred, size_t max_group,
                              unsigned num_workers, int uniform) {
  unsigned n = l->dims >= 1 && l->dims <= 3 ? l->dims : 3, d;
  size_t volume = 1;

  for (d = 0; d < n && l->size[d] == 0; d++)
    ;
  if (d == n) { /* every extent is 0: the runtime chooses */
    fpar__range_choose_local(g, l, preferred, max_group, num_workers);
    return 0;
  }
  if (l->dims != g->dims)
    return fpar__set_error(FPAR_EDIM,
                           "the local range has %u dimensions but the global "
                           "range has %u",
                           l->dims, g->dims);
  for (d = 0; d < 3; d++) {
    if (d >= l->dims)
      l->size[d] = 1;
    if (l->size[d] == 0)
      return fpar__set_error(FPAR_EEMPTY,
                             "the local range is empty in dimension %u (use "
                             "FPAR_LOCAL_AUTO to let the runtime choose)",
                             d);
    if (uniform && g->size[d] % l->size[d] != 0)
      return fpar__set_error(FPAR_ENONDIV,
                             "global range %zu is not divisible by local "
                             "range %zu in dimension %u (the launch asks "
                             "for uniform work-groups: fpar_parallel_for() "
                             "or FPAR_LAUNCH_UNIFORM)",
                             g->size[d], l->size[d], d);
    if (__builtin_mul_overflow(volume, l->size[d], &volume))
      volume = SIZE_MAX;
  }
  if (volume > max_group)
    return fpar__set_error(FPAR_EGROUPSIZE,
                           "work-groups of %zu work-items exceed the limit of "
                           "%zu (fpar_runtime_opts.max_group_size)",
                           volume, max_group);
  return 0;
}
