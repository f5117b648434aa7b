/* SPDX-License-Identifier: MIT */
/* example.h - what every bundled example does around its kernel: open a
 * runtime and a queue, wait for a launch (exiting with the kernel's message
 * if it failed), close them again. */
#ifndef FPAR_EXAMPLE_H
#define FPAR_EXAMPLE_H

#include <fiberpar.h>
#include <stdio.h>
#include <stdlib.h>

static inline void example_open(fpar_runtime **rt, fpar_queue **q) {
  if (fpar_runtime_create(rt, NULL) != 0 || fpar_queue_create(*rt, 0, q) != 0) {
    fprintf(stderr, "fiberpar: %s\n", fpar_last_error());
    exit(1);
  }
}

/* submitted: what the launch call returned; ev: where it put its event
 * (read only after the call, whatever order the arguments run in). */
static inline void example_wait(int submitted, fpar_event **evp) {
  fpar_event *ev;

  if (submitted != 0) {
    fprintf(stderr, "launch refused: %s\n", fpar_last_error());
    exit(1);
  }
  ev = *evp;
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "kernel failed: %s\n", fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

static inline void example_close(fpar_runtime *rt, fpar_queue *q) {
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}

#endif
