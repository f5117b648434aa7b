/* SPDX-License-Identifier: MIT */
/* message.c - the words of fault messages (see message.h). */
#include <stdio.h>

#include "sched/group/message.h"

void fpar__describe_items(char *buf, size_t len, size_t first, size_t last,
                          const char *one, const char *many) {
  if (first == last)
    snprintf(buf, len, "work-item %zu %s", first, one);
  else
    snprintf(buf, len, "work-items %zu-%zu %s", first, last, many);
}

const char *fpar__site_name(const char *site) {
  return site != NULL ? site : "(unnamed call site)";
}
