#include "run_folder.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

#include "runtime/core/interrupt.h"

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
  std::error_code ec;
  if (fs::exists(base, ec) && !fs::is_directory(base, ec))
    throw std::runtime_error("cannot create output folder in " + base + ": it is not a directory");
  // Neither the final name nor the partial one may exist (two runs in one microsecond).
  auto taken = [&](const std::string& n) {
    return fs::exists(fs::path(base) / n, ec) || fs::exists(fs::path(base) / (n + kPartialSuffix), ec);
  };
  std::string final_name = name;
  for (int i = 1; taken(final_name); ++i) final_name = fmt::format("{}_{}", name, i);
  fs::path dir = fs::path(base) / (final_name + kPartialSuffix);
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  interrupt::set_partial_folder(dir.string());
  return dir.string();
}

std::string finish_run_folder(const std::string& partial) {
  namespace fs = std::filesystem;
  std::string suffix = kPartialSuffix;
  if (partial.size() <= suffix.size() || partial.compare(partial.size() - suffix.size(), suffix.size(), suffix) != 0)
    return partial;
  std::string final_path = partial.substr(0, partial.size() - suffix.size());
  std::error_code ec;
  fs::rename(partial, final_path, ec);
  if (ec) throw std::runtime_error("cannot rename output folder " + partial + " to " + final_path + ": " + ec.message());
  interrupt::set_partial_folder("");
  return final_path;
}

bool is_partial_run(const std::string& path) {
  const std::string suffix = kPartialSuffix;
  for (const auto& part : std::filesystem::path(path)) {
    std::string n = part.string();
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
  }
  return false;
}

}  // namespace ptoc::profiling
