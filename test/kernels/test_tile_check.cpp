// The debug host build (-DPTO_HOST_CHECK): tiles outside their memory and
// unpaired set/wait flags abort with a message naming the problem. Each
// violation runs in a forked child so the test sees the abort.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "kernels/pto_tile.h"

namespace {

// Runs f in a child with stderr captured; returns {aborted, stderr text}.
template <typename F> std::pair<bool, std::string> run_child(F f) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGABRT, SIG_DFL);  // not Catch's handler: the parent judges the abort
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    f();
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return {WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, out};
}

}  // namespace

PTO_KERNEL(paired_kernel) {
  (void)pto_args;
  PTO_SET_FLAG(MTE2, V, 0);
  PTO_WAIT_FLAG(MTE2, V, 0);
  PTO_SET_FLAG(V, MTE3, 3);
  PTO_WAIT_FLAG(V, MTE3, 3);
  PTO_PIPE_BARRIER(ALL);
}

PTO_KERNEL(wait_without_set) {
  (void)pto_args;
  PTO_WAIT_FLAG(MTE2, V, 1);
}

PTO_KERNEL(set_left_over) {
  (void)pto_args;
  PTO_SET_FLAG(M, FIX, 2);
}

PTO_KERNEL(tile_past_ub) {
  (void)pto_args;
  // 64 x 64 fp32 = 16 KiB starting 8 KiB before the end of the 256 KiB UB.
  TFILL<float, 64, 64>(PTO_UB(float, 256 * 1024 - 8192), 1.0, 1, 1);
}

TEST_CASE("debug host build accepts paired flags and in-range tiles", "[kernels]") {
  PtoKernelArgs args{};
  auto [aborted, err] = run_child([&] {
    paired_kernel(&args);
    TFILL<float, 64, 64>(PTO_UB(float, 256 * 1024 - 16384), 1.0, 64, 64);
  });
  REQUIRE_FALSE(aborted);
  REQUIRE(err.empty());
}

TEST_CASE("debug host build catches a wait without a set", "[kernels]") {
  PtoKernelArgs args{};
  auto [aborted, err] = run_child([&] { wait_without_set(&args); });
  REQUIRE(aborted);
  REQUIRE(err.find("wait_flag(4, 1, 1) without a matching set_flag") != std::string::npos);
}

TEST_CASE("debug host build catches a flag left set at kernel exit", "[kernels]") {
  PtoKernelArgs args{};
  auto [aborted, err] = run_child([&] { set_left_over(&args); });
  REQUIRE(aborted);
  REQUIRE(err.find("kernel set_left_over returned with flag (2, 10, 2) still set") != std::string::npos);
}

TEST_CASE("debug host build catches a tile running past its memory", "[kernels]") {
  PtoKernelArgs args{};
  auto [aborted, err] = run_child([&] { tile_past_ub(&args); });
  REQUIRE(aborted);
  REQUIRE(err.find("TFILL: tile of 16384 bytes at offset 253952 runs past the end of a 262144-byte memory") !=
          std::string::npos);
}
