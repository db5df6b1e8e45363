// hold_temp_file / release_temp_file (runtime/core/interrupt.cpp) from several threads at once: a profiled
// run's artifact writers hold their NAME.tmp.PID files there, so that SIGINT removes every one. Each claim
// must be a slot no other thread holds, and name its own path while held.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/interrupt.h"

using namespace ptoc;

TEST_CASE("sixteen temp files are held at once, a seventeenth is not", "[interrupt]") {
  std::vector<int> slots;
  for (int i = 0; i < 16; ++i) {
    slots.push_back(interrupt::hold_temp_file("/tmp/held." + std::to_string(i)));
    REQUIRE(slots.back() >= 0);
    CHECK(std::string(interrupt::held_temp_file(slots.back())) == "/tmp/held." + std::to_string(i));
  }
  CHECK(interrupt::hold_temp_file("/tmp/one.too.many") == -1);
  for (int s : slots) interrupt::release_temp_file(s);
  for (int s : slots) CHECK(interrupt::held_temp_file(s) == nullptr);
}

TEST_CASE("threads hammering hold_temp_file never share a slot", "[interrupt]") {
  constexpr int kThreads = 8, kRounds = 20000;
  std::atomic<int> owner[16];
  for (auto& o : owner) o = -1;
  std::atomic<int> shared{0}, wrong_path{0}, claimed{0}, full{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      const std::string path = "/tmp/ptoc-interrupt-test." + std::to_string(t);
      while (!go) std::this_thread::yield();
      for (int i = 0; i < kRounds; ++i) {
        const int s = interrupt::hold_temp_file(path);
        if (s < 0) {
          ++full;
          continue;
        }
        ++claimed;
        if (owner[s].exchange(t) != -1) ++shared;  // another thread holds it too
        const char* p = interrupt::held_temp_file(s);
        if (!p || path != p) ++wrong_path;
        int me = t;
        if (!owner[s].compare_exchange_strong(me, -1)) ++shared;
        interrupt::release_temp_file(s);
      }
    });
  go = true;
  for (auto& th : ts) th.join();
  CHECK(shared == 0);
  CHECK(wrong_path == 0);
  CHECK(full == 0);  // 8 threads never hold more than 8 of the 16
  CHECK(claimed == kThreads * kRounds);
  // Every slot was given back: all sixteen can be held again.
  std::vector<int> again;
  for (int i = 0; i < 16; ++i) again.push_back(interrupt::hold_temp_file("/tmp/again"));
  for (int s : again) CHECK(s >= 0);
  for (int s : again) interrupt::release_temp_file(s);
}
