#include "run_folder.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace ptoc::profiling {

std::string resolve_output_base(const std::string& cli) {
  if (!cli.empty()) return cli;
  if (const char* env = std::getenv("TILE_FWK_OUTPUT_DIR"); env && *env) return env;
  return "output";
}

std::string create_run_folder(const std::string& base) {
  namespace fs = std::filesystem;
  auto now = std::chrono::system_clock::now();
  auto t = std::chrono::system_clock::to_time_t(now);
  auto usec = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  std::string name = fmt::format("output_{}_{:06d}_{}_{}", stamp, usec, getpid(), host);
  fs::path dir = fs::path(base) / name;
  std::error_code ec;
  for (int i = 1; fs::exists(dir, ec); ++i) dir = fs::path(base) / fmt::format("{}_{}", name, i);
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  return dir.string();
}

}  // namespace ptoc::profiling
