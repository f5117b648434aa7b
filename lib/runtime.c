/* SPDX-License-Identifier: MIT */
/* runtime.c - runtime options, environment overrides, create/destroy. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiberpar/simd.h"
#include "lib/env.h"
#include "lib/internal.h"
#include "lib/sized.h"
#include "sched/base/error.h"
#include "sched/diag/display.h"
#include "sched/fiber/stack.h"
#include "simd/cpu.h"

#define FPAR__KIB ((size_t)1024)
#define FPAR__MIB (1024 * FPAR__KIB)
#define FPAR__GIB (1024 * FPAR__MIB)

/* Bounds of the knobs, shared by options and environment. */
#define FPAR__MAX_THREADS 4096u
#define FPAR__STACK_MIN (16 * FPAR__KIB)
#define FPAR__STACK_MAX FPAR__GIB
#define FPAR__LOCAL_MIN (4 * FPAR__KIB)
#define FPAR__LOCAL_MAX (64 * FPAR__GIB)
#define FPAR__GROUP_MAX ((size_t)1 << 20)
#define FPAR__SPIN_MAX 1000000u
#define FPAR__SUBGROUP_MAX 1024u
#define FPAR__STACKS_MAX ((size_t)1 << 20)

/* Options with defaults filled in and environment variables applied. */
static int fpar__runtime_config(const fpar_runtime_opts *opts,
                                fpar__sched_config *cfg) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int err;

  cfg->num_threads = opts->num_threads;
  cfg->pin = opts->pin;
  cfg->stack_size = opts->stack_size ? opts->stack_size : 64 * FPAR__KIB;
  cfg->local_mem_size = opts->local_mem_size ? opts->local_mem_size : FPAR__MIB;
  cfg->max_group_size = opts->max_group_size ? opts->max_group_size : 4096;
  cfg->spin_us = opts->spin_us ? opts->spin_us : 50;
  cfg->fpenv = opts->fpenv;
  cfg->subgroup_size =
      opts->subgroup_size ? opts->subgroup_size : fpar__simd_f32_lanes();
  cfg->max_stacks = opts->max_stacks;
  cfg->stack_guard_prot = 0;
  cfg->places = opts->places;
  cfg->places_name = "fpar_runtime_opts.places";
  cfg->places_error = FPAR_EINVAL;
  cfg->display = opts->display;

  if (cfg->num_threads > FPAR__MAX_THREADS ||
      (unsigned)cfg->pin > FPAR_PIN_LIST ||
      (unsigned)cfg->display > FPAR_DISPLAY_ALL ||
      (unsigned)cfg->fpenv > FPAR_FPENV_SHARED ||
      cfg->stack_size < FPAR__STACK_MIN || cfg->stack_size > FPAR__STACK_MAX ||
      cfg->local_mem_size < FPAR__LOCAL_MIN ||
      cfg->local_mem_size > FPAR__LOCAL_MAX ||
      cfg->max_group_size > FPAR__GROUP_MAX || cfg->spin_us > FPAR__SPIN_MAX ||
      cfg->subgroup_size > FPAR__SUBGROUP_MAX ||
      (cfg->max_stacks != 0 && (cfg->max_stacks < FPAR__STACK_SLOTS_MIN ||
                                cfg->max_stacks > FPAR__STACKS_MAX)))
    return fpar__set_error(
        FPAR_EINVAL,
        "runtime options out of range: num_threads <= %u, pin 0-5, fpenv 0-2, "
        "stack_size %zu-%zu, local_mem_size %zu-%zu, max_group_size <= %zu, "
        "spin_us <= %u, subgroup_size <= %u, max_stacks 0 or %zu-%zu, "
        "display 0-3",
        FPAR__MAX_THREADS, FPAR__STACK_MIN, FPAR__STACK_MAX, FPAR__LOCAL_MIN,
        FPAR__LOCAL_MAX, FPAR__GROUP_MAX, FPAR__SPIN_MAX, FPAR__SUBGROUP_MAX,
        FPAR__STACK_SLOTS_MIN, FPAR__STACKS_MAX);
  if (cfg->places != NULL && cfg->pin == FPAR_PIN_DEFAULT)
    cfg->pin = FPAR_PIN_LIST;
  if (cfg->pin == FPAR_PIN_LIST && cfg->places == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_runtime_opts.pin is "
                                        "FPAR_PIN_LIST but places is NULL");
  if (cfg->pin != FPAR_PIN_LIST && cfg->places != NULL)
    return fpar__set_error(FPAR_EINVAL,
                           "fpar_runtime_opts.places is \"%s\" but pin is "
                           "%d, not FPAR_PIN_LIST",
                           cfg->places, (int)cfg->pin);

  if ((err = fpar__env_unsigned("FIBERPAR_NUM_THREADS", 1, FPAR__MAX_THREADS,
                                &cfg->num_threads)) ||
      (err = fpar__env_pin("FIBERPAR_PIN", &cfg->pin, &cfg->places)) ||
      (err = fpar__env_display("FIBERPAR_DISPLAY", &cfg->display)) ||
      (err = fpar__env_size("FIBERPAR_STACK_SIZE", FPAR__STACK_MIN,
                            FPAR__STACK_MAX, &cfg->stack_size)) ||
      (err = fpar__env_size("FIBERPAR_LOCAL_MEM_SIZE", FPAR__LOCAL_MIN,
                            FPAR__LOCAL_MAX, &cfg->local_mem_size)) ||
      (err = fpar__env_unsigned("FIBERPAR_SPIN_US", 0, FPAR__SPIN_MAX,
                                &cfg->spin_us)) ||
      (err = fpar__env_fpenv("FIBERPAR_FPENV", &cfg->fpenv)) ||
      (err = fpar__env_size("FIBERPAR_MAX_STACKS", FPAR__STACK_SLOTS_MIN,
                            FPAR__STACKS_MAX, &cfg->max_stacks)) ||
      (err = fpar__env_stack_guard("FIBERPAR_STACK_GUARD",
                                   &cfg->stack_guard_prot)) ||
      (err = fpar__env_schedule("FIBERPAR_SCHEDULE", &cfg->order)))
    return err;
  if (cfg->places != opts->places) {
    cfg->places_name = "FIBERPAR_PIN";
    cfg->places_error = FPAR_EENV;
  }
  if (cfg->pin == FPAR_PIN_DEFAULT)
    cfg->pin = FPAR_PIN_CORE;
  if (cfg->display == FPAR_DISPLAY_DEFAULT)
    cfg->display = FPAR_DISPLAY_WARN;
  fpar__env_local_rank(&cfg->local_rank, &cfg->local_ranks);
  cfg->trace_path = NULL;
  fpar__env_path("FIBERPAR_TRACE", &cfg->trace_path);
  cfg->secure = fpar__env_secure();
  cfg->stack_size = (cfg->stack_size + page - 1) / page * page;
  if (cfg->fpenv == FPAR_FPENV_DEFAULT)
    cfg->fpenv = FPAR_FPENV_SHARED;
  return 0;
}

int fpar_runtime_create(fpar_runtime **out, const fpar_runtime_opts *given) {
  fpar_runtime_opts opts;
  fpar_runtime *rt;
  int err;

  if (out == NULL)
    return fpar__set_error(FPAR_EINVAL, "fpar_runtime_create: rt is NULL");
  fpar_runtime_opts_init(&opts);
  if (given != NULL &&
      (err = fpar__copy_sized(&opts, sizeof opts, given, "fpar_runtime_opts")))
    return err;
  rt = calloc(1, sizeof *rt);
  if (rt == NULL)
    return fpar__set_error(FPAR_ENOMEM, "no memory for the runtime");
  if ((err = fpar__runtime_config(&opts, &rt->cfg)) != 0 ||
      (err = fpar__sched_create(&rt->sched, &rt->cfg)) != 0) {
    free(rt);
    return err;
  }
  rt->cfg.num_threads = fpar__sched_num_workers(rt->sched);
  atomic_init(&rt->queues, 0);
  fpar__display_runtime(&rt->cfg, fpar_math_isa(), fpar_math_lanes());
  *out = rt;
  return 0;
}

int fpar__runtime_usable(const fpar_runtime *rt, const char *fn) {
  if (fpar__sched_usable(rt->sched) != 0)
    return fpar__set_error(FPAR_EFORK,
                           "%s: the runtime was created by the parent "
                           "process before fork() and has no workers here; "
                           "create a runtime in the child",
                           fn);
  return 0;
}

int fpar_runtime_destroy(fpar_runtime *rt) {
  unsigned queues;
  int err;

  if (rt == NULL)
    return 0;
  if ((err = fpar__runtime_usable(rt, "fpar_runtime_destroy")) != 0)
    return err;
  queues = atomic_load(&rt->queues);
  if (queues != 0)
    return fpar__set_error(FPAR_EBUSY,
                           "fpar_runtime_destroy: %u queue(s) still exist; "
                           "destroy them first",
                           queues);
  fpar__sched_destroy(rt->sched);
  free(rt);
  return 0;
}

unsigned fpar_runtime_num_threads(const fpar_runtime *rt) {
  return rt->cfg.num_threads;
}

size_t fpar_runtime_local_mem_size(const fpar_runtime *rt) {
  return rt->cfg.local_mem_size;
}

size_t fpar_runtime_stack_size(const fpar_runtime *rt) {
  return rt->cfg.stack_size;
}

size_t fpar_runtime_max_group_size(const fpar_runtime *rt) {
  return rt->cfg.max_group_size;
}

unsigned fpar_runtime_subgroup_size(const fpar_runtime *rt) {
  return rt->cfg.subgroup_size;
}
