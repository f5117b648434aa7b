/* SPDX-License-Identifier: MIT */
/* consumer.cpp - a C++17 program built against the installed libfiberpar
 * through find_package(fiberpar): a 2-D kernel with barriers that
 * transposes tiles through group-local memory, and a barrier-free
 * FPAR_KERNEL, checked against plain C++.  Prints "ok" and exits 0. */
#include <fiberpar.h>

#include <cstdio>
#include <vector>

namespace {

constexpr size_t T = 8;           // tile edge
constexpr size_t W = 5 * T, H = 3 * T; // matrix width and height

struct transpose_args {
  const double *in; // H rows of W
  double *out;      // W rows of H
};

// Work-item (x, y) of a tile loads in[y][x] into the tile, waits, and
// writes the tile's transpose.
void transpose(fpar_item *it, void *p) {
  auto *a = static_cast<transpose_args *>(p);
  auto *tile = static_cast<double *>(
      fpar_group_local_memory(it, T * T * sizeof(double), 64));
  size_t lx = fpar_local_id(it, 0), ly = fpar_local_id(it, 1);
  size_t gx = fpar_global_id(it, 0), gy = fpar_global_id(it, 1);

  tile[ly * T + lx] = a->in[gy * W + gx];
  fpar_barrier(it);
  size_t ox = fpar_group_id(it, 1) * T + lx, oy = fpar_group_id(it, 0) * T + ly;
  a->out[oy * H + ox] = tile[lx * T + ly];
}

} // namespace

FPAR_KERNEL(square, it, p) {
  auto *v = static_cast<int *>(p);
  size_t i = fpar_global_id(it, 0);
  v[i] = static_cast<int>(i * i);
}

int main() {
  std::vector<double> in(W * H), out(W * H, -1.0);
  std::vector<int> sq(1001);
  for (size_t i = 0; i < in.size(); i++)
    in[i] = static_cast<double>(i) * 0.5;
  transpose_args ta = {in.data(), out.data()};

  fpar_runtime *rt = nullptr;
  fpar_queue *q = nullptr;
  fpar_event *ev = nullptr;
  int err = fpar_runtime_create(&rt, nullptr);
  if (err == 0)
    err = fpar_queue_create(rt, 0, &q);
  if (err == 0)
    err = fpar_parallel_for(q, fpar_range2(W, H), fpar_range2(T, T),
                            transpose, &ta, &ev);
  if (err == 0)
    err = fpar_parallel_for_kernel(q, fpar_range1(sq.size()),
                                   FPAR_LOCAL_AUTO, &square, sq.data(),
                                   nullptr);
  if (err == 0)
    err = fpar_queue_wait(q);
  if (err != 0) {
    std::fprintf(stderr, "consumer_cxx: %s (%s)\n", fpar_strerror(err),
                 fpar_last_error());
    return 1;
  }
  fpar_event_state state;
  err = fpar_event_status(ev, &state);
  fpar_event_release(ev);
  fpar_queue_destroy(q);
  fpar_runtime_destroy(rt);

  bool ok = err == 0 && state == FPAR_COMPLETE;
  for (size_t y = 0; y < H; y++)
    for (size_t x = 0; x < W; x++)
      ok = ok && out[x * H + y] == in[y * W + x];
  for (size_t i = 0; i < sq.size(); i++)
    ok = ok && sq[i] == static_cast<int>(i * i);
  std::printf("consumer_cxx (libfiberpar %s): %s\n", fpar_version_string(),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
