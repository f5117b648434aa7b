/* SPDX-License-Identifier: MIT */
/* opencl.h - an OpenCL CPU device (PoCL here) for the benchmark's sections
 * and the real-kernel suite, so that its figures are measured in the same
 * run as ours; the OpenCL types stay in opencl.c, and without OpenCL
 * opening says why and nothing else is ever called. */
#ifndef FPAR_BENCH_OPENCL_H
#define FPAR_BENCH_OPENCL_H

#include <stddef.h>

/* The first OpenCL CPU device, its context and one in-order queue; it owns
 * the programs, kernels and buffers made through it. */
typedef struct bench_ocl bench_ocl;
/* One kernel of a program built on the device. */
typedef struct bench_ocl_kernel bench_ocl_kernel;
/* A buffer over host memory. */
typedef struct bench_ocl_buf bench_ocl_buf;

/* Open the first CPU device of the OpenCL platforms.  Returns NULL with
 * the reason in why[0..len) when there is none: not built with OpenCL, no
 * platform, no CPU device, no context.  Prints nothing. */
bench_ocl *bench_ocl_open(char *why, size_t len);
/* The platform's version, the device's name and its compute units, e.g.
 * "OpenCL 3.0 PoCL 3.1 ..., device cpu-haswell-..., 2 compute units". */
const char *bench_ocl_device(const bench_ocl *o);
/* Kernel `kernel` of the program `program`, built from the OpenCL C
 * `source` the first time that program is asked for and kept until
 * bench_ocl_reset().  NULL after printing why (with the build log). */
bench_ocl_kernel *bench_ocl_build(bench_ocl *o, const char *program,
                                  const char *source, const char *kernel);
/* A buffer over host[0..bytes), without a copy (CL_MEM_USE_HOST_PTR), so
 * that the device and the host read the same data.  NULL after printing
 * why. */
bench_ocl_buf *bench_ocl_buffer(bench_ocl *o, void *host, size_t bytes);
/* Set the kernel's arguments from fmt, one letter each: b a bench_ocl_buf
 * *, i an int, u an unsigned, f a double passed as float, l a size_t of
 * bytes of local memory.  0, or nonzero after printing why. */
int bench_ocl_args(bench_ocl_kernel *k, const char *fmt, ...);
/* Enqueue the kernel over global[0..dims) work-items in groups of
 * local[0..dims) (dims 1 to 3).  0, or nonzero after printing why. */
int bench_ocl_enqueue(bench_ocl_kernel *k, unsigned dims, const size_t *global,
                      const size_t *local);
/* Wait for everything enqueued (clFinish).  0, or nonzero after printing
 * why. */
int bench_ocl_finish(bench_ocl *o);
/* Map bytes [off, off + n) of b for the host, for reading or (write set)
 * for writing, and unmap them again: OpenCL's rule for what the host does
 * with a CL_MEM_USE_HOST_PTR buffer between launches.  NULL or nonzero
 * after printing why. */
void *bench_ocl_map(bench_ocl *o, bench_ocl_buf *b, size_t off, size_t n,
                    int write);
int bench_ocl_unmap(bench_ocl *o, bench_ocl_buf *b, void *p);
/* Wait, then release every program, kernel and buffer made since the last
 * reset. */
void bench_ocl_reset(bench_ocl *o);
/* Reset, then release the queue, the context and o. */
void bench_ocl_close(bench_ocl *o);

#endif
