/* SPDX-License-Identifier: MIT */
/* private_memory.c - the sycl::private_memory example of SYCL 1.2.1
 * hierarchical parallelism (../shared/seeds/004): 8 work groups of 2x2x2
 * work-items; each work-item stores the sum of its local ids in its own
 * private memory in one parallel_for_work_item and, in the next, copies it
 * out to its own slot of the group (as SYCL's example writes it to its own
 * element of a buffer).  After that loop's implicit barrier the group
 * function prints the slots as the group's line "0 1 1 2 1 2 2 3"; the
 * program checks every line before it exits.  (The work-items do not
 * append to one line themselves: on a GPU they run at once, and that
 * would be a race, which racecheck reports.)
 */
#include <fiberpar.h>
#include <stdio.h>
#include <string.h>

#include "example.h"

#define GROUPS 8
#define ITEMS 8 /* work-items of a group */

typedef struct out_buffer {
  char lines[GROUPS][64]; /* the sycl::stream: one line per group */
} out_buffer;

typedef struct group_state {
  fpar_private_memory *my_private;
  size_t slots[ITEMS]; /* one per work-item, by local linear id */
} group_state;

static void set_private(const fpar_h_item *my_item, void *p) {
  group_state *s = p;

  *(size_t *)fpar_private_at(s->my_private, my_item) =
      fpar_h_item_get_local_id(my_item, 0) +
      fpar_h_item_get_local_id(my_item, 1) +
      fpar_h_item_get_local_id(my_item, 2);
}

static void copy_private(const fpar_h_item *my_item, void *p) {
  group_state *s = p;
  size_t id = fpar_h_item_get_local_id(my_item, 0) +
              fpar_h_item_get_logical_local_range(my_item, 0) *
                  (fpar_h_item_get_local_id(my_item, 1) +
                   fpar_h_item_get_logical_local_range(my_item, 1) *
                       fpar_h_item_get_local_id(my_item, 2));

  s->slots[id] = *(size_t *)fpar_private_at(s->my_private, my_item);
}

static void work_group(fpar_group *my_group, void *p) {
  out_buffer *out = p;
  char *line = out->lines[fpar_group_get_linear_id(my_group)];
  size_t len = 0;
  group_state s;

  /* This variable will be instantiated for each work-item separately. */
  s.my_private = fpar_private_memory_create(my_group, sizeof(size_t));
  fpar_parallel_for_work_item(my_group, set_private, &s);
  /* Implicit work-group barrier; carry the private value across loops. */
  fpar_parallel_for_work_item(my_group, copy_private, &s);
  /* Implicit barrier again: every slot is written.  The group prints. */
  for (size_t k = 0; k < ITEMS; k++)
    len += (size_t)snprintf(line + len, sizeof out->lines[0] - len, "%s%zu",
                            k ? " " : "", s.slots[k]);
}

int main(void) {
  static out_buffer out;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int wrong = 0;

  example_open(&rt, &q);
  /* Issue 8 work-groups of 8 work-items each. */
  example_wait(fpar_parallel_for_work_group(q, fpar_range3(2, 2, 2),
                                            fpar_range3(2, 2, 2), work_group,
                                            &out, &ev),
               &ev);
  example_close(rt, q);
  for (int g = 0; g < GROUPS; g++) {
    printf("%s\n", out.lines[g]);
    wrong |= strcmp(out.lines[g], "0 1 1 2 1 2 2 3") != 0;
  }
  return wrong;
}
