/* SPDX-License-Identifier: MIT */
/* rows_kernels.c - the rows benchmark's kernels as FPAR_KERNELs (see
 * rows_kernels.h).  Compiled twice: as rb_simd, with the runners of
 * version 0.1 too, with the flags pkg-config gives kernels (-fopenmp-simd
 * -DFPAR_OPENMP_SIMD), and as rb_plain without them. */
#include "rows_kernels.h"

/* Each set's kernels have names of their own (rb_jacobi_simd...), so that
 * perf and callgrind tell the two builds apart. */
#ifdef FPAR_OPENMP_SIMD
#define RB_SET rb_simd
#define RB_NAME(n) n##_simd
#define RB_FLAGS "-fopenmp-simd -DFPAR_OPENMP_SIMD"
#define RB_OLD_RUNNERS 1
#else
#define RB_SET rb_plain
#define RB_NAME(n) n##_plain
#define RB_FLAGS "no -fopenmp-simd"
#endif
#define RB_KERNEL(name) FPAR_KERNEL(name, it, args)

/* Each body as a work-item sees it. */
static inline void rb_lcg8_item(fpar_item *it, void *args) {
  rb_lcg8(args, fpar_global_id(it, 0));
}

static inline void rb_rec64_item(fpar_item *it, void *args) {
  rb_rec64(args, fpar_global_id(it, 0));
}

static inline void rb_jacobi_item(fpar_item *it, void *args) {
  rb_jacobi(args, fpar_global_id(it, 0), fpar_global_id(it, 1));
}

static inline void rb_st7_item(fpar_item *it, void *args) {
  rb_st7(args, fpar_global_id(it, 0), fpar_global_id(it, 1),
         fpar_global_id(it, 2));
}

RB_KERNEL(RB_NAME(rb_lcg8)) {
  rb_lcg8_item(it, args);
}

RB_KERNEL(RB_NAME(rb_rec64)) {
  rb_rec64_item(it, args);
}

RB_KERNEL(RB_NAME(rb_jacobi)) {
  rb_jacobi_item(it, args);
}

RB_KERNEL(RB_NAME(rb_st7)) {
  rb_st7_item(it, args);
}

#ifdef RB_OLD_RUNNERS
/* The row runner of version 0.1 of <fiberpar.h>, as programs built
 * against it have it: one row per call, the row's work-items sharing one
 * item that each call repositions. */
#define RB_OLD_ROW(name, kernel)                                               \
  static void name(fpar_item *fpar_it_, void *fpar_args_,                      \
                   size_t fpar_x_end_) {                                       \
    fpar_item fpar_row_ = *fpar_it_;                                           \
    size_t fpar_x_;                                                            \
    for (fpar_x_ = fpar_local_id(fpar_it_, 0); fpar_x_ < fpar_x_end_;          \
         fpar_x_++) {                                                          \
      fpar_item_seek(&fpar_row_, fpar_x_, 1, 0);                               \
      kernel(&fpar_row_, fpar_args_);                                          \
    }                                                                          \
  }
RB_OLD_ROW(rb_lcg8_old, rb_lcg8_item)
RB_OLD_ROW(rb_rec64_old, rb_rec64_item)
RB_OLD_ROW(rb_jacobi_old, rb_jacobi_item)
RB_OLD_ROW(rb_st7_old, rb_st7_item)
#define RB_OLD_ROWS                                                            \
  { rb_lcg8_old, rb_rec64_old, rb_jacobi_old, rb_st7_old }
#else
#define RB_OLD_ROWS                                                            \
  { NULL, NULL, NULL, NULL }
#endif

const rb_kernels RB_SET = {RB_FLAGS,
                           {&RB_NAME(rb_lcg8), &RB_NAME(rb_rec64),
                            &RB_NAME(rb_jacobi), &RB_NAME(rb_st7)},
                           RB_OLD_ROWS};
