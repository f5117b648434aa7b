/* SPDX-License-Identifier: MIT */
/* group_local.c - the sycl_ext_oneapi_local_memory example
 * (../shared/seeds/000): an nd_range of 128 work-items in groups of 32; an
 * int[64] object in group-local memory, the same for every work-item of a
 * group; each work-item sets ref[2 * local id] = 42.  Checked by copying
 * each group's object out at the end of the group.
 */
#include <fiberpar.h>
#include <stdio.h>

#include "example.h"

#define GLOBAL 128
#define LOCAL 32

static void kernel(fpar_item *item, void *p) {
  int(*copies)[64] = p;
  int(*ref)[64] = fpar_group_local_memory(item, sizeof(int[64]), 0);

  (*ref)[2 * fpar_local_linear_id(item)] = 42;
  fpar_barrier(item);
  if (fpar_local_linear_id(item) == 0)
    for (int k = 0; k < 64; k++)
      copies[fpar_group_linear_id(item)][k] = (*ref)[k];
}

int main(void) {
  static int copies[GLOBAL / LOCAL][64];
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int wrong = 0;

  example_open(&rt, &q);
  example_wait(fpar_parallel_for(q, fpar_range1(GLOBAL), fpar_range1(LOCAL),
                                 kernel, copies, &ev),
               &ev);
  example_close(rt, q);
  /* Even slots were set by the group's work-items, odd ones stay zero
   * (group_local_memory value-initialises). */
  for (int g = 0; g < GLOBAL / LOCAL; g++)
    for (int k = 0; k < 64; k++)
      wrong += copies[g][k] != (k % 2 == 0 ? 42 : 0);
  printf("%d groups of %d work-items share one int[64] each: %s\n",
         GLOBAL / LOCAL, LOCAL, wrong ? "WRONG" : "ok");
  return wrong != 0;
}
