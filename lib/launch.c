/* launch.c - nd_range launches: checking a description and submitting it. */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "lib/internal.h"
#include "lib/range.h"

void fpar_launch_desc_init(fpar_launch_desc *d) {
  memset(d, 0, sizeof *d);
  d->local = FPAR_LOCAL_AUTO;
}

/* Sizes of the launch-time local buffers for this group size; their sum,
 * padded for alignment, must fit in the arena. */
static int fpar__launch_local_buffers(fpar__launch *l,
                                      const fpar_launch_desc *d, size_t arena) {
  size_t total = 0;
  unsigned k;

  if (d->num_local_buffers > FPAR_MAX_LOCAL_BUFFERS)
    return fpar__set_error(FPAR_EINVAL,
                           "%u local buffers requested; at most %d",
                           d->num_local_buffers, FPAR_MAX_LOCAL_BUFFERS);
  if (d->num_local_buffers != 0 && d->local_buffers == NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "num_local_buffers is %u but local_buffers is NULL",
                           d->num_local_buffers);
  for (k = 0; k < d->num_local_buffers; k++) {
    const fpar_local_buffer_desc *b = &d->local_buffers[k];
    size_t align = b->align ? b->align : 64, bytes;
    if (align & (align - 1))
      return fpar__set_error(FPAR_EINVAL,
                             "local buffer %u: alignment %zu is not a power "
                             "of two",
                             k, align);
    if (__builtin_mul_overflow(b->bytes_per_item, l->group_size, &bytes) ||
        __builtin_add_overflow(bytes, b->bytes, &bytes) ||
        __builtin_add_overflow(total, bytes + align - 1, &total) ||
        total > arena)
      return fpar__set_error(FPAR_ELOCALMEM,
                             "local buffers 0-%u need more than the %zu-byte "
                             "local-memory arena of a worker; raise "
                             "FIBERPAR_LOCAL_MEM_SIZE",
                             k, arena);
    l->local_buffer_bytes[k] = bytes;
    l->local_buffer_align[k] = align;
  }
  l->num_local_buffers = d->num_local_buffers;
  return 0;
}

static void fpar__launch_geometry(fpar__launch *l, const fpar_range *g,
                                  const fpar_range *lr) {
  unsigned d;

  l->geo.dims = g->dims;
  for (d = 0; d < 3; d++) {
    l->geo.global_range[d] = g->size[d];
    l->geo.local_range[d] = lr->size[d];
    l->geo.group_range[d] = g->size[d] / lr->size[d];
  }
  l->group_size = fpar__range_volume(lr);
  l->num_groups =
      l->geo.group_range[0] * l->geo.group_range[1] * l->geo.group_range[2];
}

int fpar_launch(fpar_queue *q, const fpar_launch_desc *d, fpar_event **ev) {
  fpar_range global, local;
  const fpar__sched_config *cfg;
  fpar__launch *l;
  int err;

  if (q == NULL || d == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_launch: %s is NULL",
                           q == NULL ? "the queue" : "the description");
  if (d->kernel == NULL)
    return fpar__set_error(FPAR_ENULLKERNEL, "kernel '%s' is a NULL function",
                           d->name ? d->name : "(unnamed)");
  cfg = &q->rt->cfg;
  global = d->global;
  local = d->local;
  if ((err = fpar__range_check_global(&global)) != 0 ||
      (err = fpar__range_resolve_local(
           &global, &local,
           d->row != NULL ? FPAR__AUTO_GROUP_ROWS : FPAR__AUTO_GROUP,
           cfg->max_group_size, cfg->num_threads)) != 0)
    return err;
  l = fpar__launch_alloc(cfg->num_threads);
  if (l == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for a launch");
  l->kernel = d->kernel;
  l->row = d->row;
  l->args = d->args;
  fpar__launch_geometry(l, &global, &local);
  if ((err = fpar__launch_local_buffers(l, d, cfg->local_mem_size)) != 0) {
    fpar__launch_unref(l);
    return err;
  }
  snprintf(l->name, sizeof l->name, "%s", d->name ? d->name : "(unnamed)");
  fpar__queue_submit(q, l, ev);
  return 0;
}

int fpar_parallel_for(fpar_queue *q, fpar_range global, fpar_range local,
                      fpar_kernel_fn kernel, void *args, fpar_event **ev) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.kernel = kernel;
  d.args = args;
  d.global = global;
  d.local = local;
  return fpar_launch(q, &d, ev);
}
