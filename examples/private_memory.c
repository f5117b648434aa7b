/* SPDX-License-Identifier: MIT */
/* private_memory.c - the sycl::private_memory example of SYCL 1.2.1
 * hierarchical parallelism (../shared/seeds/004): 8 work groups of 2x2x2
 * work-items; each work-item stores the sum of its local ids in its own
 * private memory in one parallel_for_work_item and prints it in the next.
 * Each group prints its line "0 1 1 2 1 2 2 3"; the program checks every
 * line before it exits.
 */
#include <fiberpar.h>
#include <stdio.h>
#include <string.h>

#include "example.h"

#define GROUPS 8

typedef struct out_buffer {
  char lines[GROUPS][64]; /* the sycl::stream: one line per group */
} out_buffer;

typedef struct group_state {
  fpar_private_memory *my_private;
  char *line;
} group_state;

static void set_private(const fpar_h_item *my_item, void *p) {
  group_state *s = p;

  *(size_t *)fpar_private_at(s->my_private, my_item) =
      fpar_h_item_get_local_id(my_item, 0) +
      fpar_h_item_get_local_id(my_item, 1) +
      fpar_h_item_get_local_id(my_item, 2);
}

static void print_private(const fpar_h_item *my_item, void *p) {
  group_state *s = p;
  size_t len = strlen(s->line);

  snprintf(s->line + len, 64 - len, "%s%zu", len ? " " : "",
           *(size_t *)fpar_private_at(s->my_private, my_item));
}

static void work_group(fpar_group *my_group, void *p) {
  out_buffer *out = p;
  group_state s;

  /* This variable will be instantiated for each work-item separately. */
  s.my_private = fpar_private_memory_create(my_group, sizeof(size_t));
  s.line = out->lines[fpar_group_get_linear_id(my_group)];
  s.line[0] = '\0';
  fpar_parallel_for_work_item(my_group, set_private, &s);
  /* Implicit work-group barrier; carry the private value across loops. */
  fpar_parallel_for_work_item(my_group, print_private, &s);
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
