// The library's spec files for tests that walk all of them: the source root (PTOC_SOURCE_ROOT from
// the environment, else the build's), and every .yaml of the library folders, sorted.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace ptoc::test {

inline std::string source_root() {
  const char* r = std::getenv("PTOC_SOURCE_ROOT");
  return r ? r : PTOC_SOURCE_ROOT;
}

// Every spec of specs/, specs/examples/, test/effects/specs/ and test/bench/specs/ whose file name is
// not in `skip`.
inline std::vector<std::string> library_specs(std::initializer_list<const char*> skip = {}) {
  namespace fs = std::filesystem;
  std::vector<std::string> v;
  for (const char* dir : {"specs", "specs/examples", "test/effects/specs", "test/bench/specs"}) {
    fs::path d = fs::path(source_root()) / dir;
    if (!fs::exists(d)) continue;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.path().extension() != ".yaml") continue;
      const std::string name = e.path().filename().string();
      if (std::none_of(skip.begin(), skip.end(), [&](const char* s) { return name == s; }))
        v.push_back(e.path().string());
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace ptoc::test
