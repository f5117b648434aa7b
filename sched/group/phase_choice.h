/* SPDX-License-Identifier: MIT */
/* phase_choice.h - which of a phase kernel's row runners (fused, split,
 * scalar) runs each of its phases on a worker: the one its first groups
 * there ran fastest. */
#ifndef FPAR_SCHED_GROUP_PHASE_CHOICE_H
#define FPAR_SCHED_GROUP_PHASE_CHOICE_H

#include <stdint.h>

#include "sched/base/launch_record.h"

/* Phases are told apart by the barrier they resume after: 0 to 7 each
 * (the cases the row runners compile apart), the later ones together. */
#define FPAR__CHOICE_PHASES 9

/* Most runners a kernel offers: fused, split, scalar. */
#define FPAR__CHOICE_RUNNERS 3

/* Where one phase of a kernel stands on the worker (phase_choice.c): the
 * runner that won so far (its holder) against the next one tried (the
 * challenger, runner `stage` + 1). */
typedef struct fpar__phase_verdict {
  uint64_t first_ns; /* the pair's first group's time + 1; 0: none */
  unsigned char holder, stage, pairs, challenger_faster;
  signed char score;
} fpar__phase_verdict;

/* A kernel's choices on the worker, found by its runners. */
typedef struct fpar__phase_choice {
  /* The kernel's runners: fused, split, scalar (NULL: none); a free
   * entry's fused one is NULL. */
  fpar_phase_rows_fn runner[FPAR__CHOICE_RUNNERS];
  uint32_t groups; /* groups of the kernel the worker started */
  fpar_phase_rows_fn chosen[FPAR__CHOICE_PHASES]; /* NULL: on trial */
  fpar__phase_verdict phase[FPAR__CHOICE_PHASES];
} fpar__phase_choice;

/* A worker's choices, one entry per phase kernel it ran. */
typedef struct fpar__phase_choices fpar__phase_choices;

/* One group's part in the choice: the runner each phase takes, and the
 * time the phases still on trial took. */
typedef struct fpar__phase_trial {
  fpar__phase_choice *choice; /* NULL: the launch has one runner */
  unsigned challenger;        /* phases on trial run the challenger (1) or
                                 the holder (0) */
  int second;                 /* the group is its pair's second */
  int timed;                  /* a phase was timed */
  uint64_t ns[FPAR__CHOICE_PHASES];
} fpar__phase_trial;

/* Start a group of launch l on the worker whose choices *table holds
 * (allocated on first use; NULL after a failed allocation, and then the
 * launch's first runner runs every phase). */
void fpar__phase_trial_begin(fpar__phase_choices **table,
                             const fpar__launch_spec *l, fpar__phase_trial *t);

/* The group ended: count its times toward the choices. */
void fpar__phase_trial_end(fpar__phase_trial *t);

/* Free a worker's choices. */
void fpar__phase_choices_free(fpar__phase_choices *table);

static inline unsigned fpar__choice_phase(unsigned resume) {
  return resume < FPAR__CHOICE_PHASES - 1 ? resume : FPAR__CHOICE_PHASES - 1;
}

/* The runner of the phase that resumes after barrier `resume`, or NULL
 * when the phase is on trial: then the caller runs the one
 * fpar__phase_trial_tried gives and tells the time it took
 * (fpar__phase_trial_took). */
static inline fpar_phase_rows_fn
fpar__phase_trial_rows(const fpar__phase_trial *t, const fpar__launch_spec *l,
                       unsigned resume) {
  return t->choice == NULL ? l->phase_rows
                           : t->choice->chosen[fpar__choice_phase(resume)];
}

/* The runner this group tries on the phase on trial that resumes after
 * barrier `resume`. */
static inline fpar_phase_rows_fn
fpar__phase_trial_tried(const fpar__phase_trial *t, unsigned resume) {
  const fpar__phase_verdict *v = &t->choice->phase[fpar__choice_phase(resume)];

  return t->choice->runner[t->challenger ? v->stage + 1u : v->holder];
}

/* The phase on trial that resumed after barrier `resume` took ns. */
static inline void fpar__phase_trial_took(fpar__phase_trial *t, unsigned resume,
                                          uint64_t ns) {
  t->ns[fpar__choice_phase(resume)] += ns + 1;
  t->timed = 1;
}

#endif
