// Writing output files so that a reader never sees a half-written one: the
// content of a regular file (or a new path) goes to a temporary name in the
// same folder, then is renamed into place. Other targets (a device node such as
// /dev/null, a pipe, a terminal) are written directly: renaming over them
// would replace the node by a regular file.
#pragma once
#include <string>
#include <string_view>

namespace ptoc {

// Throws std::runtime_error("cannot write <path>: <reason>") on failure (a
// directory, EACCES, ENOSPC, a read-only file system, ...): for a regular file
// the temporary is removed and an existing file at `path` is left untouched.
// A symbolic link is followed: the file it names is replaced, the link stays.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace ptoc
