#include "runtime/core/interrupt.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace ptoc::interrupt {

namespace {

// Fixed buffers: a signal handler may not allocate. A slot is valid while its
// flag is set; writers clear the flag before changing the text.
struct Slot {
  char path[4096] = {};
  volatile sig_atomic_t valid = 0;
  void set(const std::string& p) {
    valid = 0;
    if (p.empty() || p.size() >= sizeof path) return;
    std::memcpy(path, p.c_str(), p.size() + 1);
    valid = 1;
  }
};
Slot g_temp, g_folder;
constexpr int kHeldTemps = 16;
Slot g_held[kHeldTemps];
volatile sig_atomic_t g_held_used[kHeldTemps] = {};  // a slot is taken (its path may not be set yet)
char g_tool[64] = "ptoc";

void say(const char* s) {
  ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

extern "C" void on_signal(int sig) {
  if (g_temp.valid) ::unlink(g_temp.path);
  for (Slot& s : g_held)
    if (s.valid) ::unlink(s.path);
  say("\n");
  say(g_tool);
  say(sig == SIGINT ? ": interrupted (SIGINT)" : ": terminated (SIGTERM)");
  if (g_folder.valid) {
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
  for (int i = 0; i < kHeldTemps; ++i)
    if (!g_held_used[i]) {
      g_held_used[i] = 1;
      g_held[i].set(path);
      return i;
    }
  return -1;
}
void release_temp_file(int slot) {
  if (slot < 0 || slot >= kHeldTemps) return;
  g_held[slot].valid = 0;
  g_held_used[slot] = 0;
}
void set_partial_folder(const std::string& path) { g_folder.set(path); }

}  // namespace ptoc::interrupt
