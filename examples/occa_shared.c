/* SPDX-License-Identifier: MIT */
/* occa_shared.c - OCCA's shared and exclusive memory (../shared/seeds/003)
 * in scoped parallelism: an OCCA outer loop is a work group, an inner loop
 * is distribute_items_and_wait, `shared` is a local-memory request and
 * `exclusive` a private-memory request (one variable per inner iteration,
 * persisting across inner loops).
 *
 * The shared-memory reduction: values[4] = [0, 1, 2, 3]; values[i] +=
 * values[i + 2] for i < 2 gives [2, 4, 2, 3]; values[i] += values[i + 1]
 * for i < 1 gives [6, 4, 2, 3], 6 = 0 + 1 + 2 + 3.  (The seed's listing
 * repeats the first step, which would give [4, 7, 2, 3]; its comments
 * describe this tree reduction.)  The exclusive variable: id = i in one
 * inner loop is read back in the next.  Both are checked for every outer
 * iteration.
 */
#include <fiberpar.h>
#include <stdio.h>

#include "example.h"

#define OUTER 16
#define INNER 4

typedef struct occa_state {
  size_t half;             /* the fold's stride */
  int *values;             /* shared int values[4] */
  fpar_private_memory *id; /* exclusive int id */
  int *results;            /* per outer iteration: values[] and ids */
  const fpar_group *group;
} occa_state;

static void fill(const fpar_s_item *it, void *p) {
  occa_state *s = p;
  size_t i = fpar_s_item_get_innermost_local_id(it, 0);

  s->values[i] = (int)i;
  *(int *)fpar_private_at(s->id, it) = (int)i; /* exclusive: id = i */
}

static void fold(const fpar_s_item *it, void *p) {
  occa_state *s = p;
  size_t i = fpar_s_item_get_innermost_local_id(it, 0);

  if (i < s->half)
    s->values[i] += s->values[i + s->half];
}

static void report(const fpar_s_item *it, void *p) {
  occa_state *s = p;
  size_t i = fpar_s_item_get_innermost_local_id(it, 0);
  int *out = s->results + fpar_group_get_id(s->group, 0) * 2 * INNER;

  out[i] = s->values[i];
  out[INNER + i] = *(int *)fpar_private_at(s->id, it); /* id == i again */
}

static void outer_body(fpar_group *g, void *const *mem, void *results) {
  occa_state s = {INNER / 2, mem[0], mem[1], results, g};

  fpar_distribute_items_and_wait(g, fill, &s); /* values = [0, 1, 2, 3] */
  fpar_distribute_items_and_wait(g, fold, &s); /* values = [2, 4, 2, 3] */
  s.half = 1;
  fpar_distribute_items_and_wait(g, fold, &s); /* values = [6, 4, 2, 3] */
  fpar_distribute_items_and_wait(g, report, &s);
}

static void outer(fpar_group *g, void *results) {
  fpar_mem_request reqs[2] = {
      fpar_require_local_mem(INNER * sizeof(int), 0, NULL, 0), /* shared */
      fpar_require_private_mem(sizeof(int), 0, NULL, 0)};      /* exclusive */

  fpar_memory_environment(g, reqs, 2, outer_body, results);
}

int main(void) {
  static const int want[2 * INNER] = {6, 4, 2, 3, 0, 1, 2, 3};
  static int results[OUTER][2 * INNER];
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int wrong = 0;

  example_open(&rt, &q);
  example_wait(fpar_parallel(q, fpar_range1(OUTER), fpar_range1(INNER), outer,
                             results, &ev),
               &ev);
  example_close(rt, q);
  for (int o = 0; o < OUTER; o++)
    for (int k = 0; k < 2 * INNER; k++)
      wrong += results[o][k] != want[k];
  printf("shared values = [%d, %d, %d, %d], exclusive ids = [%d, %d, %d, %d] "
         "in %d outer iterations: %s\n",
         results[0][0], results[0][1], results[0][2], results[0][3],
         results[0][4], results[0][5], results[0][6], results[0][7], OUTER,
         wrong ? "WRONG" : "ok");
  return wrong != 0;
}
