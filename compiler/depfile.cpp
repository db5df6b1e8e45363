#include "depfile.h"

#include <algorithm>
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

std::vector<std::string> bundle_dependencies(const std::string& spec, const std::string& kernels_dir) {
  std::vector<std::string> deps;
  std::error_code ec;
  deps.push_back(fs::absolute(spec, ec).lexically_normal().string());
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) deps.push_back(self.string());
  std::vector<std::string> headers;
  if (!kernels_dir.empty() && fs::is_directory(kernels_dir, ec))
    for (auto it = fs::recursive_directory_iterator(kernels_dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      auto ext = it->path().extension();
      if (it->is_regular_file() && (ext == ".h" || ext == ".hpp"))
        headers.push_back(fs::absolute(it->path()).lexically_normal().string());
    }
  std::sort(headers.begin(), headers.end());
  deps.insert(deps.end(), headers.begin(), headers.end());
  return deps;
}

}  // namespace ptoc
