/* SPDX-License-Identifier: MIT */
/* message.h - the words of fault messages: naming the work-items involved
 * and the call site of a barrier. */
#ifndef FPAR_SCHED_GROUP_MESSAGE_H
#define FPAR_SCHED_GROUP_MESSAGE_H

#include <stddef.h>

/* Write "work-item a <one>" or "work-items a-b <many>" into buf, e.g.
 * fpar__describe_items(buf, len, 0, 4, "waits", "wait"). */
void fpar__describe_items(char *buf, size_t len, size_t first, size_t last,
                          const char *one, const char *many);

/* Name a barrier site for a message. */
const char *fpar__site_name(const char *site);

#endif
