/* SPDX-License-Identifier: MIT */
/* range.h - checking launch ranges and choosing work-group sizes. */
#ifndef FPAR_LIB_RANGE_H
#define FPAR_LIB_RANGE_H

#include "fiberpar.h"

/* Check a range (1-3 dimensions, no zero extent, product fits in size_t)
 * and set its unused dimensions to 1.  what names it in messages ("the
 * global range").  Returns 0, FPAR_EDIM, FPAR_EEMPTY or FPAR_EINVAL with
 * fpar_last_error set. */
int fpar__range_check(fpar_range *r, const char *what);

/* Resolve the work-group range of a checked global range: FPAR_LOCAL_AUTO
 * gets a size chosen by the runtime (up to `preferred` work-items, fewer
 * when that would leave workers without a few groups each, always a
 * divisor; whole rows along dimension 0 first, see range.c), anything
 * else is checked (same dimensions, no zero extent,
 * divides the global range if `uniform`, at most max_group work-items).
 * Returns 0, FPAR_EDIM, FPAR_EEMPTY, FPAR_ENONDIV or FPAR_EGROUPSIZE. */
int fpar__range_resolve_local(const fpar_range *global, fpar_range *local,
                              size_t preferred, size_t max_group,
                              unsigned num_workers, int uniform);

/* Check a global offset for the checked global range g: 0 beyond its
 * dimensions, and offset + global within size_t in each.  Returns 0 or
 * FPAR_EINVAL with fpar_last_error set. */
int fpar__range_check_offset(const fpar_range *g, const size_t offset[3]);

/* Preferred work-group sizes: fibers of a group should keep their stacks
 * in L2; a barrier-free group (a row runner) only amortises its fixed
 * cost. */
#define FPAR__AUTO_GROUP 256
#define FPAR__AUTO_GROUP_ROWS 4096

/* Product of the extents. */
size_t fpar__range_volume(const fpar_range *r);

#endif
