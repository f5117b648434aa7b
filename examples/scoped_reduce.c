/* SPDX-License-Identifier: MIT */
/* scoped_reduce.c - the scoped-parallelism example of AdaptiveCpp
 * (../shared/seeds/002): 1024 ints, work groups of 128 logical items, a
 * local int[128] scratch and a private int from memory_environment, a tree
 * reduction with distribute_items_and_wait, and each group's sum written to
 * data[group * 128] by single_item.  The sums are checked on the host.
 */
#include <fiberpar.h>
#include <stdio.h>

#include "example.h"

#define INPUT_SIZE 1024
#define GROUP_SIZE 128

typedef struct reduce_state {
  int *data;                 /* the input, later the per-group sums */
  int *scratch;              /* local memory: int[GROUP_SIZE] */
  fpar_private_memory *mine; /* private memory (shown, not needed) */
  const fpar_group *group;
  size_t stride;
} reduce_state;

static void load(const fpar_s_item *idx, void *p) {
  reduce_state *s = p;

  s->scratch[fpar_s_item_get_local_id(idx, s->group, 0)] =
      s->data[fpar_s_item_get_global_id(idx, 0)];
  *(int *)fpar_private_at(s->mine, idx) = 0;
}

static void add_upper_half(const fpar_s_item *idx, void *p) {
  reduce_state *s = p;
  size_t lid = fpar_s_item_get_innermost_local_id(idx, 0);

  if (lid < s->stride)
    s->scratch[lid] += s->scratch[lid + s->stride];
}

static void store_sum(void *p) {
  reduce_state *s = p;

  s->data[fpar_group_get_id(s->group, 0) * GROUP_SIZE] = s->scratch[0];
}

static void nothing(void *p) {
  (void)p;
}

/* Per sub-group work would go here, once per sub-group. */
static void per_subgroup(fpar_group *sub, void *p) {
  fpar_single_item(sub, nothing, p);
}

static void with_memory(fpar_group *grp, void *const *mem, void *args) {
  reduce_state s = {args, mem[0], mem[1], grp, 0};

  fpar_distribute_items(grp, load, &s);
  fpar_group_barrier(grp);
  fpar_distribute_groups(grp, per_subgroup, &s);
  for (s.stride = GROUP_SIZE / 2; s.stride > 0; s.stride /= 2)
    fpar_distribute_items_and_wait(grp, add_upper_half, &s);
  fpar_single_item(grp, store_sum, &s);
}

static void kernel(fpar_group *grp, void *data) {
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(GROUP_SIZE * sizeof(int), 0, NULL, 0),
      fpar_require_private_mem(sizeof(int), 0, NULL, 0)};

  fpar_memory_environment(grp, reqs, 2, with_memory, data);
}

int main(void) {
  static int data[INPUT_SIZE];
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int wrong = 0;

  for (int i = 0; i < INPUT_SIZE; i++)
    data[i] = i;
  example_open(&rt, &q);
  example_wait(fpar_parallel(q, fpar_range1(INPUT_SIZE / GROUP_SIZE),
                             fpar_range1(GROUP_SIZE), kernel, data, &ev),
               &ev);
  example_close(rt, q);

  for (int grp = 0; grp < INPUT_SIZE / GROUP_SIZE; ++grp) {
    int host_result = 0;
    for (int i = grp * GROUP_SIZE; i < (grp + 1) * GROUP_SIZE; ++i)
      host_result += i;
    if (host_result != data[grp * GROUP_SIZE]) {
      printf("Wrong result, got %d, expected %d\n", data[grp * GROUP_SIZE],
             host_result);
      wrong++;
    }
  }
  printf("scoped reduction of %d ints in groups of %d: %s\n", INPUT_SIZE,
         GROUP_SIZE, wrong ? "WRONG" : "ok");
  return wrong != 0;
}
