/* SPDX-License-Identifier: MIT */
/* opencl.c - the benchmark's OpenCL host side (see opencl.h): the first CPU
 * device of the first platform that has one, one in-order queue, one
 * kernel, buffers that wrap the sections' host arrays.  BENCH_OPENCL is set
 * when configure found OpenCL (m4/fpar_opencl.m4). */
#include <stdio.h>
#include <stdlib.h>

#include "opencl.h"

#ifndef BENCH_OPENCL

bench_ocl *bench_ocl_open(const char *source, const char *name,
                          const char **why) {
  (void)source, (void)name;
  *why = "built without OpenCL (configure --with-opencl; on Debian: "
         "apt-get install ocl-icd-opencl-dev pocl-opencl-icd)";
  return NULL;
}

/* Never called without a handle, which only bench_ocl_open() gives. */
const char *bench_ocl_device(const bench_ocl *o) {
  (void)o;
  return "";
}

void bench_ocl_buffer(bench_ocl *o, unsigned index, void *host, size_t bytes) {
  (void)o, (void)index, (void)host, (void)bytes;
}

void bench_ocl_enqueue(bench_ocl *o, size_t global, size_t local) {
  (void)o, (void)global, (void)local;
}

void bench_ocl_finish(bench_ocl *o) {
  (void)o;
}

void bench_ocl_sync(bench_ocl *o, unsigned index) {
  (void)o, (void)index;
}

void bench_ocl_close(bench_ocl *o) {
  (void)o;
}

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define BENCH_OCL_MAX_ARGS 8

struct bench_ocl {
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel kernel;
  cl_mem args[BENCH_OCL_MAX_ARGS];
  char device[512];
};

/* Exit naming the OpenCL call that failed: past bench_ocl_open() a failure
 * is a broken benchmark, not a missing device. */
static void ocl_check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "bench: OpenCL %s failed: error %d\n", what, (int)err);
    exit(1);
  }
}

/* The first CPU device of any platform; 0 if there is none. */
static int ocl_find_cpu(cl_platform_id *plat, cl_device_id *dev) {
  cl_platform_id all[8];
  cl_uint n = 0;

  if (clGetPlatformIDs(8, all, &n) != CL_SUCCESS)
    return 0;
  for (cl_uint i = 0; i < n && i < 8; i++)
    if (clGetDeviceIDs(all[i], CL_DEVICE_TYPE_CPU, 1, dev, NULL) ==
        CL_SUCCESS) {
      *plat = all[i];
      return 1;
    }
  return 0;
}

bench_ocl *bench_ocl_open(const char *source, const char *name,
                          const char **why) {
  char pname[256] = "", dname[256] = "", log[8192];
  cl_platform_id plat;
  cl_device_id dev;
  bench_ocl *o;
  cl_int err;

  if (!ocl_find_cpu(&plat, &dev)) {
    *why = "no OpenCL CPU device (install pocl-opencl-icd)";
    return NULL;
  }
  o = calloc(1, sizeof *o);
  if (o == NULL) {
    *why = "out of memory";
    return NULL;
  }
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  snprintf(o->device, sizeof o->device, "%s (%s)", dname, pname);
  o->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  ocl_check(err, "clCreateContext");
  o->q = clCreateCommandQueue(o->ctx, dev, 0, &err);
  ocl_check(err, "clCreateCommandQueue");
  o->prog = clCreateProgramWithSource(o->ctx, 1, &source, NULL, &err);
  ocl_check(err, "clCreateProgramWithSource");
  if (clBuildProgram(o->prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    clGetProgramBuildInfo(o->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    fprintf(stderr, "bench: OpenCL build of %s failed:\n%s\n", name, log);
    exit(1);
  }
  o->kernel = clCreateKernel(o->prog, name, &err);
  ocl_check(err, "clCreateKernel");
  return o;
}

const char *bench_ocl_device(const bench_ocl *o) {
  return o->device;
}

void bench_ocl_buffer(bench_ocl *o, unsigned index, void *host, size_t bytes) {
  cl_int err;

  if (index >= BENCH_OCL_MAX_ARGS) {
    fprintf(stderr, "bench: OpenCL argument %u: at most %d\n", index,
            BENCH_OCL_MAX_ARGS);
    exit(1);
  }
  o->args[index] = clCreateBuffer(
      o->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
  ocl_check(err, "clCreateBuffer");
  ocl_check(clSetKernelArg(o->kernel, index, sizeof(cl_mem), &o->args[index]),
            "clSetKernelArg");
}

void bench_ocl_enqueue(bench_ocl *o, size_t global, size_t local) {
  ocl_check(clEnqueueNDRangeKernel(o->q, o->kernel, 1, NULL, &global, &local, 0,
                                   NULL, NULL),
            "clEnqueueNDRangeKernel");
}

void bench_ocl_finish(bench_ocl *o) {
  ocl_check(clFinish(o->q), "clFinish");
}

void bench_ocl_sync(bench_ocl *o, unsigned index) {
  size_t bytes;
  void *p;
  cl_int err;

  ocl_check(clGetMemObjectInfo(o->args[index], CL_MEM_SIZE, sizeof bytes,
                               &bytes, NULL),
            "clGetMemObjectInfo");
  p = clEnqueueMapBuffer(o->q, o->args[index], CL_TRUE, CL_MAP_READ, 0, bytes,
                         0, NULL, NULL, &err);
  ocl_check(err, "clEnqueueMapBuffer");
  ocl_check(clEnqueueUnmapMemObject(o->q, o->args[index], p, 0, NULL, NULL),
            "clEnqueueUnmapMemObject");
}

void bench_ocl_close(bench_ocl *o) {
  for (unsigned i = 0; i < BENCH_OCL_MAX_ARGS; i++)
    if (o->args[i] != NULL)
      clReleaseMemObject(o->args[i]);
  clReleaseKernel(o->kernel);
  clReleaseProgram(o->prog);
  clReleaseCommandQueue(o->q);
  clReleaseContext(o->ctx);
  free(o);
}

#endif
