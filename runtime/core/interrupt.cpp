#include "runtime/core/interrupt.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace ptoc::interrupt {

namespace {

// Fixed buffers: a signal handler may not allocate. A slot is valid while its
// flag is set; writers clear the flag before changing the text. The flags are
// lock-free atomics (async-signal-safe), set with release after the text and
// read with acquire by the handler, so it never sees a half-written path.
struct Slot {
  char path[4096] = {};
  std::atomic<int> valid{0};
  void set(const std::string& p) {
    valid.store(0);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the text changes only after the flag is clear
    if (p.empty() || p.size() >= sizeof path) return;
    std::memcpy(path, p.c_str(), p.size() + 1);
    valid.store(1, std::memory_order_release);
  }
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these flags");
Slot g_temp, g_folder;
constexpr int kHeldTemps = 16;
Slot g_held[kHeldTemps];
// A slot is taken (its path may not be set yet). Threads claim one with a compare-exchange, so two
// writers streaming artifacts at once never share a slot (a plain test-then-set could give both the same).
std::atomic<int> g_held_used[kHeldTemps] = {};
char g_tool[64] = "ptoc";

void say(const char* s) {
  ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

extern "C" void on_signal(int sig) {
  if (g_temp.valid.load(std::memory_order_acquire)) ::unlink(g_temp.path);
  for (Slot& s : g_held)
    if (s.valid.load(std::memory_order_acquire)) ::unlink(s.path);
  say("\n");
  say(g_tool);
  say(sig == SIGINT ? ": interrupted (SIGINT)" : ": terminated (SIGTERM)");
  if (g_folder.valid.load(std::memory_order_acquire)) {
    say("; the run folder ");
    say(g_folder.path);
    say(" is incomplete and keeps its .partial name");
  }
  say("\n");
  ::_exit(128 + sig);
}

}  // namespace

void install(const char* tool) {
  size_t n = std::min(std::strlen(tool), sizeof g_tool - 1);
  std::memcpy(g_tool, tool, n);
  g_tool[n] = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void set_temp_file(const std::string& path) { g_temp.set(path); }
int hold_temp_file(const std::string& path) {
  for (int i = 0; i < kHeldTemps; ++i) {
    int free_slot = 0;
    if (g_held_used[i].compare_exchange_strong(free_slot, 1, std::memory_order_acq_rel)) {
      g_held[i].set(path);
      return i;
    }
  }
  return -1;
}
void release_temp_file(int slot) {
  if (slot < 0 || slot >= kHeldTemps) return;
  g_held[slot].valid.store(0, std::memory_order_release);
  g_held_used[slot].store(0, std::memory_order_release);
}
const char* held_temp_file(int slot) {
  if (slot < 0 || slot >= kHeldTemps || !g_held[slot].valid.load(std::memory_order_acquire)) return nullptr;
  return g_held[slot].path;
}
void set_partial_folder(const std::string& path) { g_folder.set(path); }

}  // namespace ptoc::interrupt
