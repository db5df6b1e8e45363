// Stopping cleanly on SIGINT / SIGTERM: the handler removes the temporary file
// being written (so no NAME.tmp.PID is left), says on stderr which run folder
// is left incomplete (it keeps its ".partial" name, which readers skip), and
// exits with 128 + the signal number: 130 for SIGINT, 143 for SIGTERM.
#pragma once
#include <string>

namespace ptoc::interrupt {

// Installs the handlers; `tool` prefixes the message ("ptorun").
void install(const char* tool);
// The temporary file being written now ("" when none); atomic_file.cpp keeps it current.
void set_temp_file(const std::string& path);
// The run folder being filled now ("" when none); run_folder.cpp keeps it current.
void set_partial_folder(const std::string& path);

}  // namespace ptoc::interrupt
