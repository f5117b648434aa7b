/* SPDX-License-Identifier: MIT */
/* main.c - the real-kernel suite's program (make bench-real): parse the
 * command line, run the driver.
 *
 *   ./examples/real/real [--check] [--no-opencl] [--reps N] [KERNEL[=SIZE]...]
 */
#include <stdio.h>

#include "real.h"

int main(int argc, char **argv) {
  real_options opts;
  char err[4096];

  switch (real_parse(argc, argv, &opts, err, sizeof err)) {
  case 0:
    break;
  case 1: /* --help */
    fputs(err, stdout);
    return 0;
  default:
    fputs(err, stderr);
    return 2;
  }
  return real_main(&opts);
}
