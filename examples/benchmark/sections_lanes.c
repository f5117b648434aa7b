/* SPDX-License-Identifier: MIT */
/* sections_lanes.c - the table of sections of the benchmark's builds for
 * another instruction set (examples/bench_avx2, bench_sse2): the lanes
 * section alone, whose kernels' vector width the instruction set sets
 * (`make bench-isa`).  The other sections, the phase kernels and the
 * collectives above all, took most of those builds' compile time. */
#include "bench.h"

const bench_section bench_sections[] = {
    {"lanes", bench_lanes, "lane-form kernels against OpenMP SIMD"},
};

const size_t bench_num_sections =
    sizeof bench_sections / sizeof *bench_sections;
