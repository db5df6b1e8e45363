#include "depfile.h"

#include <filesystem>

namespace ptoc {

namespace fs = std::filesystem;

static std::string escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

std::string format_depfile(const std::string& target, const std::vector<std::string>& deps) {
  std::string out = escape(target) + ":";
  for (const auto& d : deps) out += " \\\n  " + escape(d);
  return out + "\n";
}

std::string running_executable() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.string();
}

}  // namespace ptoc
