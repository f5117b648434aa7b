/* SPDX-License-Identifier: MIT */
/* launch.c - nd_range launches: checking a description and submitting it. */
#include <stddef.h>
#include <string.h>

#include "lib/env.h"
#include "lib/internal.h"
#include "lib/range.h"
#include "lib/sized.h"
#include "sched/base/error.h"
#include "sched/fiber/sanitizer.h"
#include "sched/group/arena.h"
#include "sched/group/phase.h"

/* Copy as much of src as fits (snprintf costs a tenth of an empty
 * launch). */
static void fpar__copy_name(char *dst, size_t size, const char *src) {
  size_t n = strnlen(src, size - 1);

  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* Sizes of the launch-time local buffers for this group size.  They are
 * laid out in the arena as the workers will lay them out, so a launch that
 * passes this check gets every buffer it asked for. */
static int fpar__launch_local_buffers(fpar__launch_spec *l,
                                      const fpar_launch_desc *d, size_t arena) {
  size_t used = 0;
  unsigned k;

  if (d->num_local_buffers > FPAR_MAX_LOCAL_BUFFERS)
    return fpar__set_error(FPAR_EINVAL,
                           "num_local_buffers is %u; at most %d are allowed",
                           d->num_local_buffers, FPAR_MAX_LOCAL_BUFFERS);
  if (d->num_local_buffers != 0 && d->local_buffers == NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "num_local_buffers is %u but local_buffers is NULL",
                           d->num_local_buffers);
  for (k = 0; k < d->num_local_buffers; k++) {
    const fpar_local_buffer_desc *b = &d->local_buffers[k];
    size_t align = b->align ? b->align : 64, bytes, start;
    if ((align & (align - 1)) != 0 || align > FPAR_MAX_LOCAL_ALIGN)
      return fpar__set_error(FPAR_EINVAL,
                             "local_buffers[%u].align is %zu; it must be a "
                             "power of two up to %d",
                             k, align, FPAR_MAX_LOCAL_ALIGN);
    if (__builtin_mul_overflow(b->bytes_per_item, l->group_size, &bytes) ||
        __builtin_add_overflow(bytes, b->bytes, &bytes))
      return fpar__set_error(FPAR_ELOCALMEM,
                             "local_buffers[%u]: bytes (%zu) + bytes_per_item "
                             "(%zu) x %zu work-items overflows",
                             k, b->bytes, b->bytes_per_item, l->group_size);
    if (fpar__arena_place(used, bytes, align, &start, &used) != 0 ||
        used > arena)
      return fpar__set_error(
          FPAR_ELOCALMEM,
          "local_buffers[0-%u] need more than the %zu-byte "
          "local-memory arena of a worker (local_buffers[%u] "
          "alone is %zu bytes); raise "
          "FIBERPAR_LOCAL_MEM_SIZE",
          k, arena, k, bytes);
    l->local_buffer_bytes[k] = bytes;
    l->local_buffer_align[k] = align;
  }
  l->num_local_buffers = d->num_local_buffers;
  return 0;
}

static void fpar__launch_geometry(fpar__launch_spec *l, const fpar_range *g,
                                  const fpar_range *lr,
                                  const size_t offset[3]) {
  unsigned d;

  l->geo.dims = g->dims;
  l->nonuniform = 0;
  for (d = 0; d < 3; d++) {
    l->geo.global_range[d] = g->size[d];
    l->geo.local_range[d] = lr->size[d];
    l->geo.enqueued_local_range[d] = lr->size[d];
    l->geo.group_range[d] =
        g->size[d] / lr->size[d] + (g->size[d] % lr->size[d] != 0);
    l->geo.global_offset[d] = offset[d];
    l->nonuniform |= g->size[d] % lr->size[d] != 0;
  }
  /* Wraps around like the sum fpar_global_linear_id() subtracts it from,
   * so the difference is exact. */
  l->geo.offset_linear =
      offset[0] + g->size[0] * (offset[1] + g->size[1] * offset[2]);
  l->group_size = fpar__range_volume(lr);
  l->num_groups =
      l->geo.group_range[0] * l->geo.group_range[1] * l->geo.group_range[2];
}

/* Whether every sub-group of every group of geometry geo has s work-items:
 * each group's extent in dimension 0 (the last group's too, where the
 * enqueued extent does not divide the launch's) is a multiple of s. */
static int fpar__launch_subgroups_whole(const fpar_nd_geometry *geo, size_t s) {
  size_t tail = geo->global_range[0] % geo->local_range[0];

  return geo->local_range[0] % s == 0 && tail % s == 0;
}

/* Work-items per sub-group of an nd_range launch (<fiberpar/subgroup.h>):
 * the description's, else the runtime's up to FPAR_MAX_SUB_GROUP_SIZE; a
 * lane kernel's sub-group is its lanes. */
static int fpar__launch_subgroup(fpar__launch_spec *l,
                                 const fpar_launch_desc *d, unsigned runtime) {
  const char *name = d->name ? d->name : "(unnamed)";
  unsigned s = d->subgroup_size;

  if (s > FPAR_MAX_SUB_GROUP_SIZE)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': subgroup_size %u is above "
                           "FPAR_MAX_SUB_GROUP_SIZE (%d)",
                           name, s, FPAR_MAX_SUB_GROUP_SIZE);
  if (l->lanes > 1 && s != 0 && s != l->lanes)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': subgroup_size %u differs from the "
                           "lane kernel's %u lanes (its sub-group)",
                           name, s, l->lanes);
  if (l->lanes > 1)
    s = l->lanes;
  else if (s == 0)
    s = runtime < FPAR_MAX_SUB_GROUP_SIZE ? runtime : FPAR_MAX_SUB_GROUP_SIZE;
  l->geo.sub_group_size = s;
  l->subgroup_ops = l->model == FPAR__ND_RANGE && l->lanes == 1 &&
                    (d->def == NULL || d->def->phase_rows == NULL);
  l->subgroup_mask = l->subgroup_ops && s > 1 && (s & (s - 1)) == 0 ? s - 1 : 0;
  l->subgroups_whole = fpar__launch_subgroups_whole(&l->geo, s);
  return 0;
}

/* Work groups of a scoped or hierarchical launch: d->global is the number
 * of groups, d->local their size.  Fills global (all logical items) and
 * local. */
static int fpar__launch_group_shape(const fpar_launch_desc *d,
                                    const fpar__sched_config *cfg,
                                    fpar_range *global, fpar_range *local) {
  fpar_range groups = d->global;
  size_t items = 1;
  unsigned k, n = d->local.dims >= 1 && d->local.dims <= 3 ? d->local.dims : 3;
  int err;

  *local = d->local;
  if ((err = fpar__range_check(&groups, "the number of groups")) != 0)
    return err;
  for (k = 0; k < n && local->size[k] == 0; k++)
    ;
  if (k == n && d->hierarchical != NULL) /* the runtime's choice */
    *local = fpar_range3(cfg->subgroup_size, 1, 1);
  local->dims = groups.dims;
  if (d->local.dims != groups.dims && k != n)
    return fpar__set_error(FPAR_EDIM,
                           "the group size has %u dimensions but the number "
                           "of groups has %u",
                           d->local.dims, groups.dims);
  if ((err = fpar__range_check(local, "the group size")) != 0)
    return err;
  *global = groups;
  for (k = 0; k < 3; k++)
    if (__builtin_mul_overflow(groups.size[k], local->size[k],
                               &global->size[k]) ||
        __builtin_mul_overflow(items, global->size[k], &items))
      return fpar__set_error(FPAR_EINVAL,
                             "the launch has more than SIZE_MAX items");
  return 0;
}

/* Arguments by value (fpar_launch_desc::args_size): at most
 * FPAR_MAX_ARGS_SIZE bytes, and somewhere to copy them from. */
static int fpar__launch_args(const fpar_launch_desc *d) {
  const char *name = d->name ? d->name : "(unnamed)";

  if (d->args_size > FPAR_MAX_ARGS_SIZE)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': args_size %zu is above "
                           "FPAR_MAX_ARGS_SIZE (%d); pass larger arguments "
                           "by pointer (args_size 0)",
                           name, d->args_size, FPAR_MAX_ARGS_SIZE);
  if (d->args_size != 0 && d->args == NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': args_size is %zu but args is NULL",
                           name, d->args_size);
  return 0;
}

/* Which of kernel, scoped and hierarchical the description sets. */
static int fpar__launch_model(const fpar_launch_desc *d, fpar__model *model) {
  int set =
      (d->kernel != NULL) + (d->scoped != NULL) + (d->hierarchical != NULL);

  if (set == 0)
    return fpar__set_error(FPAR_ENULLKERNEL, "kernel '%s' is a NULL function",
                           d->name ? d->name : "(unnamed)");
  if (set > 1)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s' sets more than one of kernel, scoped "
                           "and hierarchical",
                           d->name ? d->name : "(unnamed)");
  *model = d->kernel != NULL   ? FPAR__ND_RANGE
           : d->scoped != NULL ? FPAR__SCOPED
                               : FPAR__HIERARCHICAL;
  return 0;
}

/* A description with a def, as the description it stands for: kernel, row
 * and lanes (and, if unset, the name) come from the def. */
static int fpar__launch_def(const fpar_launch_desc *d, fpar_launch_desc *out) {
  const fpar_kernel *k = d->def;

  *out = *d;
  if (d->kernel != NULL || d->row != NULL || d->lanes != 0 ||
      d->scoped != NULL || d->hierarchical != NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s' sets def and also kernel, row, lanes, "
                           "scoped or hierarchical",
                           d->name ? d->name : k->name);
  out->kernel = k->fn;
  out->row = k->row;
  out->lanes = k->lanes;
  if (out->name == NULL)
    out->name = k->name;
  return 0;
}

/* How a phase kernel runs: fpar_launch_desc.phase_mode, else
 * FIBERPAR_PHASE, else as loops.  As fibers it is the nd_range kernel
 * k->fn; as loops the launch takes the row runner and the state.  Under
 * a FIBERPAR_SCHEDULE other than forward it runs as fibers, whose
 * work-items follow the schedule; its description is checked all the
 * same. */
static int fpar__launch_phase(fpar__launch_spec *l, const fpar_launch_desc *d) {
  const char *name = d->name ? d->name : "(unnamed)";
  const fpar_kernel *k = d->def;
  fpar_phase_mode mode = d->phase_mode;
  int err;

  if ((unsigned)mode > FPAR_PHASE_LOOPS_SCALAR)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': phase_mode %u is not an "
                           "fpar_phase_mode",
                           name, (unsigned)mode);
  if (k == NULL || k->phase_rows == NULL) {
    if (mode != FPAR_PHASE_DEFAULT)
      return fpar__set_error(FPAR_EINVAL,
                             "launch '%s' sets phase_mode but its kernel is "
                             "not a phase kernel (FPAR_PHASE_KERNEL)",
                             name);
    return 0;
  }
  if (mode == FPAR_PHASE_DEFAULT) {
    mode = FPAR_PHASE_LOOPS;
    if ((err = fpar__env_phase("FIBERPAR_PHASE", &mode)) != 0)
      return err;
  }
  if (k->phase_debug_rows == NULL || k->state_align == 0 ||
      (k->state_align & (k->state_align - 1)) || k->state_align > 4096 ||
      (k->local_size != 0 && (k->local_align & (k->local_align - 1))))
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': phase kernel without a debug runner "
                           "or with state or local alignment %zu/%zu (not a "
                           "power of two, state up to 4096)",
                           name, k->state_align, k->local_align);
  if (k->state_size > SIZE_MAX / 2 / l->group_fibers)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': %zu states of %zu bytes per group "
                           "exceed the address space",
                           name, l->group_fibers, k->state_size);
  /* Racecheck (a ThreadSanitizer build) runs the fibers form too, in
   * which each work-item is a fiber of its own. */
  if (mode == FPAR_PHASE_FIBERS || !fpar__order_is_forward(&l->order) ||
      fpar__tsan_enabled())
    return 0;
  l->model = FPAR__PHASE;
  l->run_group = fpar__phase_run_group;
  /* Loops run each phase in the form the worker measures fastest, when
   * the kernel has more than one (sched/group/phase_choice.c). */
  l->phase_rows = mode == FPAR_PHASE_DEBUG ? k->phase_debug_rows
                  : mode == FPAR_PHASE_LOOPS_SPLIT && k->phase_split_rows
                      ? k->phase_split_rows
                  : mode == FPAR_PHASE_LOOPS_SCALAR && k->phase_scalar_rows
                      ? k->phase_scalar_rows
                      : k->phase_rows;
  l->phase_split_rows = mode == FPAR_PHASE_LOOPS ? k->phase_split_rows : NULL;
  l->phase_scalar_rows = mode == FPAR_PHASE_LOOPS ? k->phase_scalar_rows : NULL;
  l->phase_debug = mode == FPAR_PHASE_DEBUG;
  l->state_size = k->state_size;
  l->state_align = k->state_align;
  l->local_size = k->local_size;
  l->local_align = k->local_align;
  l->phase_file = k->file;
  return 0;
}

int fpar_launch(fpar_queue *q, const fpar_launch_desc *given, fpar_event **ev) {
  fpar_launch_desc desc, from_def;
  const fpar_launch_desc *d = &desc;
  fpar_range global, local;
  const fpar__sched_config *cfg;
  fpar__model model = FPAR__ND_RANGE;
  fpar__launch_spec spec;
  unsigned k;
  int err;

  if (q == NULL || given == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_launch: %s is NULL",
                           q == NULL ? "the queue" : "the description");
  if ((err = fpar__copy_sized(&desc, sizeof desc, given, "fpar_launch_desc")) !=
          0 ||
      (err = fpar__runtime_usable(q->rt, "fpar_launch")) != 0)
    return err;
  /* A caller built before flags existed was promised uniform groups. */
  if (given->size < offsetof(fpar_launch_desc, flags) + sizeof desc.flags)
    desc.flags = FPAR_LAUNCH_UNIFORM;
  if ((desc.flags & ~(unsigned)FPAR_LAUNCH_UNIFORM) != 0)
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': flags 0x%x has bits that are no "
                           "FPAR_LAUNCH_* flag",
                           desc.name ? desc.name : "(unnamed)", desc.flags);
  if (d->def != NULL) {
    if ((err = fpar__launch_def(d, &from_def)) != 0)
      return err;
    d = &from_def;
  }
  if ((err = fpar__launch_model(d, &model)) != 0 ||
      (err = fpar__launch_args(d)) != 0)
    return err;
  if (d->lanes > 1 && (model != FPAR__ND_RANGE || d->lanes > 64 ||
                       (d->lanes & (d->lanes - 1)) != 0))
    return fpar__set_error(FPAR_EINVAL,
                           "launch '%s': lanes %u must be a power of two up "
                           "to 64, for an nd_range kernel",
                           d->name ? d->name : "(unnamed)", d->lanes);
  cfg = &q->rt->cfg;
  global = d->global;
  local = d->local;
  if (model != FPAR__ND_RANGE) {
    if (d->global_offset[0] | d->global_offset[1] | d->global_offset[2])
      return fpar__set_error(FPAR_EINVAL,
                             "launch '%s': global_offset is for nd_range "
                             "kernels; a scoped or hierarchical launch "
                             "counts its groups from 0",
                             d->name ? d->name : "(unnamed)");
    err = fpar__launch_group_shape(d, cfg, &global, &local);
  } else if ((err = fpar__range_check(&global, "the global range")) == 0 &&
             (err = fpar__range_check_offset(&global, d->global_offset)) == 0)
    err = fpar__range_resolve_local(&global, &local,
                                    d->row != NULL ? FPAR__AUTO_GROUP_ROWS
                                                   : FPAR__AUTO_GROUP,
                                    cfg->max_group_size, cfg->num_threads,
                                    (d->flags & FPAR_LAUNCH_UNIFORM) != 0);
  if (err != 0)
    return err;
  memset(&spec, 0, sizeof spec);
  spec.model = model;
  spec.kernel = d->kernel;
  spec.row = d->row;
  spec.lanes = d->lanes > 1 ? d->lanes : 1;
  spec.group_fn = model == FPAR__SCOPED ? d->scoped : d->hierarchical;
  spec.subgroup_size = cfg->subgroup_size;
  spec.args = d->args;
  spec.order = cfg->order;
  fpar__launch_geometry(&spec, &global, &local, d->global_offset);
  spec.group_fibers = fpar__group_calls(local.size, spec.lanes);
  for (k = 0; k < 3; k++)
    spec.physical_size[k] = model == FPAR__HIERARCHICAL ? local.size[k] : 1;
  if ((err = fpar__launch_local_buffers(&spec, d, cfg->local_mem_size)) != 0 ||
      (err = fpar__launch_subgroup(&spec, d, cfg->subgroup_size)) != 0 ||
      (err = fpar__launch_phase(&spec, d)) != 0)
    return err;
  fpar__copy_name(spec.name, sizeof spec.name, d->name ? d->name : "(unnamed)");
  return fpar__queue_submit(q, &spec, d->args_size, ev);
}

/* An nd_range launch of a kernel function or of a def, with args by
 * pointer (args_size 0) or copied. */
static int fpar__launch_range(fpar_queue *q, fpar_range global,
                              fpar_range local, fpar_kernel_fn kernel,
                              const fpar_kernel *def, const void *args,
                              size_t args_size, fpar_event **ev) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.def = def;
  d.args = (void *)args; /* by value (copied), or the caller's to share */
  d.args_size = args_size;
  d.global = global;
  d.local = local;
  d.flags = FPAR_LAUNCH_UNIFORM; /* SYCL's nd_range */
  return fpar_launch(q, &d, ev);
}

int fpar_parallel_for(fpar_queue *q, fpar_range global, fpar_range local,
                      fpar_kernel_fn kernel, void *args, fpar_event **ev) {
  return fpar__launch_range(q, global, local, kernel, NULL, args, 0, ev);
}

int fpar_parallel_for_kernel(fpar_queue *q, fpar_range global, fpar_range local,
                             const fpar_kernel *k, void *args,
                             fpar_event **ev) {
  return fpar__launch_range(q, global, local, NULL, k, args, 0, ev);
}

/* The by-value calls: 0 bytes would pass args by pointer instead. */
static int fpar__by_value_size(size_t args_size, const char *fn) {
  if (args_size == 0)
    return fpar__set_error(FPAR_EINVAL,
                           "%s: args_size is 0; pass no arguments with the "
                           "call without _by_value",
                           fn);
  return 0;
}

int fpar_parallel_for_by_value(fpar_queue *q, fpar_range global,
                               fpar_range local, fpar_kernel_fn kernel,
                               const void *args, size_t args_size,
                               fpar_event **ev) {
  int err = fpar__by_value_size(args_size, "fpar_parallel_for_by_value");

  return err ? err
             : fpar__launch_range(q, global, local, kernel, NULL, args,
                                  args_size, ev);
}

int fpar_parallel_for_kernel_by_value(fpar_queue *q, fpar_range global,
                                      fpar_range local, const fpar_kernel *k,
                                      const void *args, size_t args_size,
                                      fpar_event **ev) {
  int err = fpar__by_value_size(args_size, "fpar_parallel_for_kernel_by_value");

  return err ? err
             : fpar__launch_range(q, global, local, NULL, k, args, args_size,
                                  ev);
}

/* A scoped or hierarchical launch of the group function fn. */
static int fpar__launch_groups(fpar_queue *q, fpar_range num_groups,
                               fpar_range group_size, fpar_group_fn fn,
                               void *args, fpar_event **ev, int hierarchical) {
  fpar_launch_desc d;

  if (fn == NULL)
    return fpar__set_error(FPAR_ENULLKERNEL, "%s: fn is NULL",
                           hierarchical ? "fpar_parallel_for_work_group"
                                        : "fpar_parallel");
  fpar_launch_desc_init(&d);
  if (hierarchical)
    d.hierarchical = fn;
  else
    d.scoped = fn;
  d.args = args;
  d.global = num_groups;
  d.local = group_size;
  return fpar_launch(q, &d, ev);
}

int fpar_parallel(fpar_queue *q, fpar_range num_groups, fpar_range group_size,
                  fpar_group_fn fn, void *args, fpar_event **ev) {
  return fpar__launch_groups(q, num_groups, group_size, fn, args, ev, 0);
}

int fpar_parallel_for_work_group(fpar_queue *q, fpar_range num_groups,
                                 fpar_range group_size, fpar_group_fn fn,
                                 void *args, fpar_event **ev) {
  return fpar__launch_groups(q, num_groups, group_size, fn, args, ev, 1);
}
