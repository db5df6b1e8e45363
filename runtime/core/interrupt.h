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
// A temporary file written beside others (a profiled run streams several artifacts at once, each
// through profiling::ChunkedFile): the handler removes every one held. Returns the slot to release
// when the file is renamed into place or removed; -1 when every slot is taken (then only the
// run folder's .partial name marks the file).
// Safe from several threads at once (slots are claimed with atomics, async-signal-safe).
int hold_temp_file(const std::string& path);
void release_temp_file(int slot);
// The path a held slot names, nullptr when the slot is free (what the handler would remove; for tests).
const char* held_temp_file(int slot);
// The run folder being filled now ("" when none); run_folder.cpp keeps it current.
void set_partial_folder(const std::string& path);

}  // namespace ptoc::interrupt
