/* SPDX-License-Identifier: MIT */
/* opencl.h - an OpenCL CPU device (PoCL here) driven from the benchmark's
 * sections, so that its figures are measured in the same run as ours; the
 * OpenCL types stay in opencl.c, and without OpenCL every call says why. */
#ifndef FPAR_BENCH_OPENCL_H
#define FPAR_BENCH_OPENCL_H

#include <stddef.h>

/* One kernel built for the first OpenCL CPU device, on an in-order queue. */
typedef struct bench_ocl bench_ocl;

/* Build the kernel `name` from the OpenCL C `source`.  Returns NULL and
 * prints nothing when there is no OpenCL (not built with it, or no CPU
 * device): *why then says which, for the result line's `-`. */
bench_ocl *bench_ocl_open(const char *source, const char *name,
                          const char **why);
/* The device's and platform's names, e.g. "pthread-haswell-... (Portable
 * Computing Language 3.1)". */
const char *bench_ocl_device(const bench_ocl *o);
/* Pass the host memory host[0..bytes) as the kernel's argument `index`,
 * without a copy (CL_MEM_USE_HOST_PTR), so both sides read the same data. */
void bench_ocl_buffer(bench_ocl *o, unsigned index, void *host, size_t bytes);
/* Enqueue the kernel over `global` work-items in groups of `local`. */
void bench_ocl_enqueue(bench_ocl *o, size_t global, size_t local);
/* Wait for everything enqueued (clFinish). */
void bench_ocl_finish(bench_ocl *o);
/* Make the device's writes to argument `index` visible in its host memory
 * (a blocking map and unmap: OpenCL's rule for CL_MEM_USE_HOST_PTR). */
void bench_ocl_sync(bench_ocl *o, unsigned index);
void bench_ocl_close(bench_ocl *o);

#endif
