/* SPDX-License-Identifier: MIT */
/* collectives.c - section collectives: work-group reduce and exclusive
 * scan (<fiberpar/group.h>) against the same written by hand and a bare
 * barrier, as scalar fiber, lane and phase kernels: ns per work-item per
 * collective at L = 256 and 1024 on one worker. */

#include "../collective_kernels.h"

#include "bench.h"

/* One form of a round: a kernel (bare or defined with its runners), what
 * each work-item's total must be, and how many barriers the hand-written
 * forms cross per round. */
typedef enum cb_result { CB_OWN, CB_SUM, CB_PREFIX } cb_result;
typedef struct cb_variant {
  const char *label;
  fpar_kernel_fn fn;
  const fpar_kernel *def;
  cb_result result;
} cb_variant;

#define CB_ROUNDS 100

/* The total work-item lid of a group of L must have. */
static float cb_expected(cb_result what, size_t lid, size_t L) {
  float acc = 0;

  for (int r = 0; r < CB_ROUNDS; r++) {
    float v = 0;
    size_t end = what == CB_SUM ? L : what == CB_PREFIX ? lid : 0;
    if (what == CB_OWN)
      v = cb_value(lid, r);
    for (size_t j = 0; j < end; j++)
      v += cb_value(j, r);
    acc += v;
  }
  return acc;
}

static void cb_run(fpar_queue *q, const cb_variant *v, size_t L, size_t groups,
                   cb_args *a) {
  fpar_event *ev;

  if (v->def != NULL)
    bench_check(fpar_parallel_for_kernel(q, fpar_range1(L * groups),
                                         fpar_range1(L), v->def, a, &ev),
                v->label);
  else
    bench_check(fpar_parallel_for(q, fpar_range1(L * groups), fpar_range1(L),
                                  v->fn, a, &ev),
                v->label);
  if (fpar_event_wait(ev) != 0) {
    fprintf(stderr, "bench: %s failed: %s\n", v->label, fpar_event_error(ev));
    exit(1);
  }
  fpar_event_release(ev);
}

/* Time the variants interleaved (so drift hits all alike), check every
 * work-item's total, print ns per work-item per round. */
static void cb_measure(fpar_queue *q, const cb_variant *v, unsigned nv,
                       size_t L, bench_stat *st) {
  size_t groups = 2000000 / (L * CB_ROUNDS), n = L * groups;
  double units = (double)n * CB_ROUNDS, t[8][REPS];
  float *out = malloc(n * sizeof *out);
  cb_args a = {CB_ROUNDS, out};
  char label[96];

  for (int r = -1; r < REPS; r++)
    for (unsigned k = 0; k < nv; k++) {
      double t0 = bench_now();
      cb_run(q, &v[k], L, groups, &a);
      if (r >= 0)
        t[k][r] = bench_now() - t0;
      if (r == -1)
        for (size_t i = 0; i < n; i++)
          if (out[i] != cb_expected(v[k].result, i % L, L)) {
            fprintf(stderr, "bench: %s L=%zu: work-item %zu total %g, not %g\n",
                    v[k].label, L, i, (double)out[i],
                    (double)cb_expected(v[k].result, i % L, L));
            exit(1);
          }
    }
  for (unsigned k = 0; k < nv; k++) {
    snprintf(label, sizeof label, "%s L=%zu", v[k].label, L);
    st[k] = bench_report_ns(label, t[k], REPS, units);
  }
  free(out);
}

/* Ratios of one form: [0] the bare barrier, then the reduce collective,
 * its hand-written forms, the scan collective and its hand-written
 * forms; nr and ns: hand-written reduce and scan forms. */
static void cb_report(const char *form, const cb_variant *v, size_t L,
                      const bench_stat *st, unsigned nr, unsigned ns,
                      double tree_target) {
  size_t groups = 2000000 / (L * CB_ROUNDS);
  double units = (double)L * (double)groups * CB_ROUNDS;
  char label[96];

  for (unsigned k = 0; k < nr; k++) {
    snprintf(label, sizeof label, "%s L=%zu reduce: coll. vs %s", form, L,
             v[2 + k].label);
    bench_report_ratio(label, st[1], st[2 + k],
                       k + 1 == nr ? tree_target : 1.0);
  }
  for (unsigned k = 0; k < ns; k++) {
    snprintf(label, sizeof label, "%s L=%zu scan: coll. vs %s", form, L,
             v[3 + nr + k].label);
    bench_report_ratio(label, st[2 + nr], st[3 + nr + k], 1.0);
  }
  printf("INFO   %s L=%zu: reduce collective = one barrier %+.3f ns, scan "
         "collective = one barrier %+.3f ns per work-item (medians; target: "
         "one barrier + small per-item work)\n",
         form, L, (st[1].median - st[0].median) / units * 1e9,
         (st[2 + nr].median - st[0].median) / units * 1e9);
}

void bench_collectives(void) {
  static const size_t sizes[] = {256, 1024};
  static const cb_variant fibers[] = {
      {"fibers barrier only", cb_barrier, NULL, CB_OWN},
      {"fibers reduce collective", cb_reduce_coll, NULL, CB_SUM},
      {"fibers reduce 2 barriers+loop", cb_reduce_loop, NULL, CB_SUM},
      {"fibers reduce tree", cb_reduce_tree, NULL, CB_SUM},
      {"fibers scan collective", cb_scan_coll, NULL, CB_PREFIX},
      {"fibers scan 2 barriers+loop", cb_scan_loop, NULL, CB_PREFIX},
      {"fibers scan Hillis-Steele", cb_scan_tree, NULL, CB_PREFIX},
  };
  static const cb_variant lanes[] = {
      {"lanes barrier only", NULL, &cb_lane_barrier, CB_OWN},
      {"lanes reduce collective", NULL, &cb_lane_reduce_coll, CB_SUM},
      {"lanes reduce 2 barriers+loop", NULL, &cb_lane_reduce_loop, CB_SUM},
      {"lanes scan collective", NULL, &cb_lane_scan_coll, CB_PREFIX},
      {"lanes scan 2 barriers+loop", NULL, &cb_lane_scan_loop, CB_PREFIX},
  };
  static const cb_variant phases[] = {
      {"phase barrier only", NULL, &cb_phase_barrier, CB_OWN},
      {"phase reduce collective", NULL, &cb_phase_reduce_coll, CB_SUM},
      {"phase reduce tree", NULL, &cb_phase_reduce_tree, CB_SUM},
      {"phase scan collective", NULL, &cb_phase_scan_coll, CB_PREFIX},
      {"phase scan 2 barriers+loop", NULL, &cb_phase_scan_loop, CB_PREFIX},
  };
  fpar_runtime *rt = bench_runtime(1, FPAR_FPENV_DEFAULT);
  bench_stat st[8];
  fpar_queue *q;

  bench_check(fpar_queue_create(rt, 0, &q), "queue");
  printf("# collectives: one worker, %d rounds per group, ~2M work-item "
         "rounds per rep; ns per work-item per round (a collective, or "
         "its hand-written form, or one bare barrier)\n",
         CB_ROUNDS);
  for (unsigned k = 0; k < 2; k++) {
    size_t L = sizes[k];
    cb_measure(q, fibers, 7, L, st);
    cb_report("fibers", fibers, L, st, 2, 2, 1.5);
    cb_measure(q, lanes, 5, L, st);
    cb_report("lanes", lanes, L, st, 1, 1, 1.0);
    cb_measure(q, phases, 5, L, st);
    cb_report("phase", phases, L, st, 1, 1, 1.0);
  }
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);
}
