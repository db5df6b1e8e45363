// Host twin, debug build (-DPTO_HOST_CHECK): checks that every tile a tile op
// touches lies inside one local memory, and that set_flag/wait_flag pair up
// the way the device requires (a wait needs an earlier set of the same
// (src, dst, id); nothing stays set at kernel exit). A violation prints what
// and where and aborts: it is a codegen bug, never a user error.
#pragma once

#include <stdio.h>
#include <stdlib.h>

namespace pto {
namespace host {

[[noreturn]] inline void check_fail(const char* what) {
  fprintf(stderr, "pto host check failed: %s\n", what);
  abort();
}

inline void check_range(const void* p, int64_t bytes, const char* op) {
  LocalMemories& m = memories();
  const unsigned char* c = static_cast<const unsigned char*>(p);
  struct Mem { const unsigned char* base; int64_t size; };
  const Mem mems[] = {{m.ub, kUbBytes}, {m.l1, kL1Bytes}, {m.l0a, kL0aBytes}, {m.l0b, kL0bBytes}, {m.l0c, kL0cBytes}};
  for (const Mem& x : mems)
    if (c >= x.base && c < x.base + x.size) {
      if (c + bytes > x.base + x.size) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s: tile of %lld bytes at offset %lld runs past the end of a %lld-byte memory", op,
                 (long long)bytes, (long long)(c - x.base), (long long)x.size);
        check_fail(buf);
      }
      return;
    }
  char buf[256];
  snprintf(buf, sizeof buf, "%s: local tile pointer is not inside any local memory", op);
  check_fail(buf);
}

struct FlagState {
  unsigned char count[16][16][8];  // [src pipe][dst pipe][event id]
  int depth;
};
inline FlagState& flag_state() {
  static thread_local FlagState s{};
  return s;
}

inline void check_flag_args(int src, int dst, int id, const char* what) {
  if (src < 0 || src > 15 || dst < 0 || dst > 15 || id < 0 || id > 7) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s(%d, %d, %d): pipe or event id out of range", what, src, dst, id);
    check_fail(buf);
  }
}

inline void check_set_flag(int src, int dst, int id) {
  check_flag_args(src, dst, id, "set_flag");
  unsigned char& c = flag_state().count[src][dst][id];
  if (c != 0) {
    char buf[128];
    snprintf(buf, sizeof buf, "set_flag(%d, %d, %d) while the flag is already set", src, dst, id);
    check_fail(buf);
  }
  c = 1;
}

inline void check_wait_flag(int src, int dst, int id) {
  check_flag_args(src, dst, id, "wait_flag");
  unsigned char& c = flag_state().count[src][dst][id];
  if (c == 0) {
    char buf[128];
    snprintf(buf, sizeof buf, "wait_flag(%d, %d, %d) without a matching set_flag", src, dst, id);
    check_fail(buf);
  }
  c = 0;
}

inline void check_kernel_begin() {
  FlagState& s = flag_state();
  if (s.depth++ == 0) memset(s.count, 0, sizeof s.count);
}

inline void check_kernel_end(const char* kernel) {
  FlagState& s = flag_state();
  if (--s.depth != 0) return;
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b)
      for (int e = 0; e < 8; ++e)
        if (s.count[a][b][e]) {
          char buf[160];
          snprintf(buf, sizeof buf, "kernel %s returned with flag (%d, %d, %d) still set", kernel, a, b, e);
          check_fail(buf);
        }
}

}  // namespace host
}  // namespace pto
