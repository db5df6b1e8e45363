// Writing files so that a reader never sees a half-written one: the content
// goes to a temporary name in the same folder, then is renamed into place.
#pragma once
#include <string>
#include <string_view>

namespace ptoc {

// Throws std::runtime_error("cannot write <path>: <reason>") on failure; the
// temporary file is removed and an existing file at `path` is left untouched.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace ptoc
