/* SPDX-License-Identifier: MIT */
/* opencl.c - the OpenCL host side shared by the benchmark and the
 * real-kernel suite (see opencl.h): the first CPU device, programs built
 * once per name, kernels, buffers over host memory, arguments, launches and
 * maps.  BENCH_OPENCL is set when configure found OpenCL
 * (m4/fpar_opencl.m4); without it, opening says so. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl.h"

#ifdef BENCH_OPENCL

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* Objects made since the last reset, released together. */
#define BENCH_OCL_MAX 64

struct bench_ocl_buf {
  cl_mem mem;
};

struct bench_ocl_kernel {
  bench_ocl *o;
  cl_kernel k;
  const char *name;
};

typedef struct bench_ocl_prog {
  const char *name;
  cl_program p;
} bench_ocl_prog;

struct bench_ocl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  char device_name[640]; /* platform version, device name, units */
  bench_ocl_prog progs[BENCH_OCL_MAX];
  unsigned nprogs;
  bench_ocl_kernel kernels[BENCH_OCL_MAX];
  unsigned nkernels;
  bench_ocl_buf bufs[BENCH_OCL_MAX];
  unsigned nbufs;
};

/* The name of an OpenCL error code, for messages. */
static const char *cl_name(cl_int e) {
  switch (e) {
#define BENCH_CL_CASE(x)                                                       \
  case x:                                                                      \
    return #x;
    BENCH_CL_CASE(CL_DEVICE_NOT_FOUND)
    BENCH_CL_CASE(CL_OUT_OF_RESOURCES)
    BENCH_CL_CASE(CL_OUT_OF_HOST_MEMORY)
    BENCH_CL_CASE(CL_BUILD_PROGRAM_FAILURE)
    BENCH_CL_CASE(CL_INVALID_VALUE)
    BENCH_CL_CASE(CL_INVALID_PLATFORM)
    BENCH_CL_CASE(CL_INVALID_DEVICE)
    BENCH_CL_CASE(CL_INVALID_BUFFER_SIZE)
    BENCH_CL_CASE(CL_INVALID_HOST_PTR)
    BENCH_CL_CASE(CL_INVALID_KERNEL_NAME)
    BENCH_CL_CASE(CL_INVALID_ARG_INDEX)
    BENCH_CL_CASE(CL_INVALID_ARG_VALUE)
    BENCH_CL_CASE(CL_INVALID_ARG_SIZE)
    BENCH_CL_CASE(CL_INVALID_KERNEL_ARGS)
    BENCH_CL_CASE(CL_INVALID_WORK_DIMENSION)
    BENCH_CL_CASE(CL_INVALID_WORK_GROUP_SIZE)
    BENCH_CL_CASE(CL_INVALID_WORK_ITEM_SIZE)
    BENCH_CL_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef BENCH_CL_CASE
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform installed)";
  default:
    return "an OpenCL error";
  }
}

bench_ocl *bench_ocl_open(char *why, size_t len) {
  cl_platform_id platforms[8];
  cl_uint n = 0, i;
  cl_int e;
  bench_ocl *o;
  char pver[256], dname[256];
  cl_uint units = 0;

  e = clGetPlatformIDs(8, platforms, &n);
  if (e != CL_SUCCESS || n == 0) {
    snprintf(why, len, "no OpenCL platform (clGetPlatformIDs: %d %s)", e,
             e != CL_SUCCESS ? cl_name(e) : "none listed");
    return NULL;
  }
  o = calloc(1, sizeof *o);
  if (o == NULL) {
    snprintf(why, len, "out of memory");
    return NULL;
  }
  for (i = 0; i < n && i < 8; i++)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &o->device, NULL) ==
        CL_SUCCESS) {
      o->platform = platforms[i];
      break;
    }
  if (o->platform == NULL) {
    snprintf(why, len, "no CPU device on the %u OpenCL platform(s)", n);
    free(o);
    return NULL;
  }
  o->ctx = clCreateContext(NULL, 1, &o->device, NULL, NULL, &e);
  if (e == CL_SUCCESS)
    o->q = clCreateCommandQueue(o->ctx, o->device, 0, &e);
  if (e != CL_SUCCESS) {
    snprintf(why, len, "no OpenCL context or queue (%d %s)", e, cl_name(e));
    if (o->ctx != NULL)
      clReleaseContext(o->ctx);
    free(o);
    return NULL;
  }
  if (clGetPlatformInfo(o->platform, CL_PLATFORM_VERSION, sizeof pver, pver,
                        NULL) != CL_SUCCESS)
    strcpy(pver, "?");
  if (clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof dname, dname, NULL) !=
      CL_SUCCESS)
    strcpy(dname, "?");
  clGetDeviceInfo(o->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                  NULL);
  snprintf(o->device_name, sizeof o->device_name,
           "%s, device %s, %u compute units", pver, dname, units);
  return o;
}

void bench_ocl_reset(bench_ocl *o) {
  unsigned i;

  clFinish(o->q);
  for (i = 0; i < o->nkernels; i++)
    clReleaseKernel(o->kernels[i].k);
  for (i = 0; i < o->nbufs; i++)
    clReleaseMemObject(o->bufs[i].mem);
  for (i = 0; i < o->nprogs; i++)
    clReleaseProgram(o->progs[i].p);
  o->nkernels = o->nbufs = o->nprogs = 0;
}

void bench_ocl_close(bench_ocl *o) {
  bench_ocl_reset(o);
  clReleaseCommandQueue(o->q);
  clReleaseContext(o->ctx);
  free(o);
}

const char *bench_ocl_device(const bench_ocl *o) {
  return o->device_name;
}

/* The program `name`, built from src on first use. */
static cl_program program(bench_ocl *o, const char *name, const char *src) {
  char log[4096];
  unsigned i;
  cl_int e;
  cl_program p;

  for (i = 0; i < o->nprogs; i++)
    if (strcmp(o->progs[i].name, name) == 0)
      return o->progs[i].p;
  if (src == NULL) {
    fprintf(stderr, "opencl: no OpenCL source for %s\n", name);
    return NULL;
  }
  if (o->nprogs == BENCH_OCL_MAX) {
    fprintf(stderr, "opencl: %s: more than %d programs\n", name, BENCH_OCL_MAX);
    return NULL;
  }
  p = clCreateProgramWithSource(o->ctx, 1, &src, NULL, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: %s: clCreateProgramWithSource: %d %s\n", name, e,
            cl_name(e));
    return NULL;
  }
  e = clBuildProgram(p, 1, &o->device, "", NULL, NULL);
  if (e != CL_SUCCESS) {
    log[0] = '\0';
    clGetProgramBuildInfo(p, o->device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    log[sizeof log - 1] = '\0';
    fprintf(stderr, "opencl: %s does not build (%d %s):\n%s\n", name, e,
            cl_name(e), log);
    clReleaseProgram(p);
    return NULL;
  }
  o->progs[o->nprogs].name = name;
  o->progs[o->nprogs++].p = p;
  return p;
}

bench_ocl_kernel *bench_ocl_build(bench_ocl *o, const char *name,
                                  const char *src, const char *kname) {
  cl_program p = program(o, name, src);
  bench_ocl_kernel *k;
  cl_int e;

  if (p == NULL)
    return NULL;
  if (o->nkernels == BENCH_OCL_MAX) {
    fprintf(stderr, "opencl: too many OpenCL kernels\n");
    return NULL;
  }
  k = &o->kernels[o->nkernels];
  k->k = clCreateKernel(p, kname, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: %s: no kernel %s (%d %s)\n", name, kname, e,
            cl_name(e));
    return NULL;
  }
  k->o = o;
  k->name = kname;
  o->nkernels++;
  return k;
}

bench_ocl_buf *bench_ocl_buffer(bench_ocl *o, void *host, size_t n) {
  bench_ocl_buf *b;
  cl_int e;

  if (o->nbufs == BENCH_OCL_MAX) {
    fprintf(stderr, "opencl: too many OpenCL buffers\n");
    return NULL;
  }
  b = &o->bufs[o->nbufs];
  b->mem = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n,
                          host, &e);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: clCreateBuffer of %zu bytes: %d %s\n", n, e,
            cl_name(e));
    return NULL;
  }
  o->nbufs++;
  return b;
}

int bench_ocl_args(bench_ocl_kernel *k, const char *fmt, ...) {
  va_list ap;
  cl_uint i;
  cl_int e = CL_SUCCESS;

  va_start(ap, fmt);
  for (i = 0; fmt[i] != '\0' && e == CL_SUCCESS; i++) {
    switch (fmt[i]) {
    case 'b': {
      bench_ocl_buf *b = va_arg(ap, bench_ocl_buf *);
      e = clSetKernelArg(k->k, i, sizeof b->mem, &b->mem);
      break;
    }
    case 'i': {
      cl_int x = va_arg(ap, int);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'u': {
      cl_uint x = va_arg(ap, unsigned);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'f': {
      cl_float x = (cl_float)va_arg(ap, double);
      e = clSetKernelArg(k->k, i, sizeof x, &x);
      break;
    }
    case 'l':
      e = clSetKernelArg(k->k, i, va_arg(ap, size_t), NULL);
      break;
    default:
      e = CL_INVALID_VALUE;
    }
  }
  va_end(ap);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: %s: argument %u: %d %s\n", k->name, i - 1, e,
            cl_name(e));
    return -1;
  }
  return 0;
}

int bench_ocl_enqueue(bench_ocl_kernel *k, unsigned dims, const size_t *global,
                      const size_t *local) {
  cl_int e = clEnqueueNDRangeKernel(k->o->q, k->k, dims, NULL, global, local, 0,
                                    NULL, NULL);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: enqueue %s: %d %s\n", k->name, e, cl_name(e));
    return -1;
  }
  return 0;
}

int bench_ocl_finish(bench_ocl *o) {
  cl_int e = clFinish(o->q);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: clFinish: %d %s\n", e, cl_name(e));
    return -1;
  }
  return 0;
}

void *bench_ocl_map(bench_ocl *o, bench_ocl_buf *b, size_t off, size_t n,
                    int write) {
  cl_int e;
  void *p = clEnqueueMapBuffer(o->q, b->mem, CL_TRUE,
                               write ? CL_MAP_WRITE : CL_MAP_READ, off, n, 0,
                               NULL, NULL, &e);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: clEnqueueMapBuffer: %d %s\n", e, cl_name(e));
    return NULL;
  }
  return p;
}

int bench_ocl_unmap(bench_ocl *o, bench_ocl_buf *b, void *p) {
  cl_int e = clEnqueueUnmapMemObject(o->q, b->mem, p, 0, NULL, NULL);

  if (e != CL_SUCCESS) {
    fprintf(stderr, "opencl: clEnqueueUnmapMemObject: %d %s\n", e, cl_name(e));
    return -1;
  }
  return 0;
}

#else /* no OpenCL in this build: opening says so, nothing else runs */

bench_ocl *bench_ocl_open(char *why, size_t len) {
  snprintf(why, len,
           "this build has no OpenCL (configure found none, or "
           "--with-opencl=no; Debian: apt-get install pocl-opencl-icd "
           "ocl-icd-opencl-dev)");
  return NULL;
}

/* The rest is never called: only bench_ocl_open() gives a handle. */
const char *bench_ocl_device(const bench_ocl *o) {
  (void)o;
  return "none";
}

bench_ocl_kernel *bench_ocl_build(bench_ocl *o, const char *name,
                                  const char *src, const char *kname) {
  (void)o, (void)name, (void)src, (void)kname;
  return NULL;
}

bench_ocl_buf *bench_ocl_buffer(bench_ocl *o, void *host, size_t n) {
  (void)o, (void)host, (void)n;
  return NULL;
}

int bench_ocl_args(bench_ocl_kernel *k, const char *fmt, ...) {
  (void)k, (void)fmt;
  return -1;
}

int bench_ocl_enqueue(bench_ocl_kernel *k, unsigned dims, const size_t *global,
                      const size_t *local) {
  (void)k, (void)dims, (void)global, (void)local;
  return -1;
}

int bench_ocl_finish(bench_ocl *o) {
  (void)o;
  return -1;
}

void *bench_ocl_map(bench_ocl *o, bench_ocl_buf *b, size_t off, size_t n,
                    int write) {
  (void)o, (void)b, (void)off, (void)n, (void)write;
  return NULL;
}

int bench_ocl_unmap(bench_ocl *o, bench_ocl_buf *b, void *p) {
  (void)o, (void)b, (void)p;
  return -1;
}

void bench_ocl_reset(bench_ocl *o) {
  (void)o;
}

void bench_ocl_close(bench_ocl *o) {
  (void)o;
}

#endif
