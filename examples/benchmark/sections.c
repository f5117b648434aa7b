/* SPDX-License-Identifier: MIT */
/* sections.c - the table of the benchmark's sections, in the order they
 * run: every section (examples/bench). */
#include "bench.h"

const bench_section bench_sections[] = {
    {"barrier", bench_barrier,
     "ns per work-item per barrier of fibers, beside loop fission"},
    {"free", bench_free, "barrier-free kernels against OpenMP loops"},
    {"launch", bench_launch,
     "empty launch + wait and batches, beside OpenMP, PoCL, HIP-CPU"},
    {"memory", bench_memory, "resident memory of a 1024-work-item group"},
    {"scoped", bench_scoped, "scoped parallelism against OpenMP SIMD"},
    {"lanes", bench_lanes, "lane-form kernels against OpenMP SIMD"},
    {"phase", bench_phase, "phase kernels against fibers, OpenMP and PoCL"},
    {"ranges", bench_ranges, "non-uniform work-groups against uniform ones"},
    {"subgroups", bench_subgroups,
     "sub-group operations and group copies against hand-written forms"},
    {"collectives", bench_collectives,
     "work-group reduce and scan against hand-written forms"},
    {"timestep", bench_timestep,
     "time-stepped 2-D and 3-D stencils, one launch per step, vs OpenMP"},
};

const size_t bench_num_sections =
    sizeof bench_sections / sizeof *bench_sections;
