#include "run_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ptoc::codegen {

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  ProcessResult r;
  if (argv.empty()) {
    r.output = "empty command";
    return r;
  }
  int fds[2];
  // Close-on-exec, so a child started concurrently by another thread does not
  // inherit this pipe's write end and keep it open.
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.output.append("pipe: ").append(std::strerror(errno));
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    r.output.append("cannot run ").append(argv[0]).append(": ").append(std::strerror(rc));
    return r;
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      r.output.append(buf, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.started = true;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  // posix_spawnp reports a missing program as exit 127 from the child on some libcs.
  if (r.exit_code == 127 && r.output.empty()) {
    r.started = false;
    r.output.append("cannot run ").append(argv[0]).append(": not found");
  }
  return r;
}

static bool is_executable_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

std::optional<std::string> find_executable(const std::string& name, const std::string& path_list) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? std::optional(name) : std::nullopt;
  size_t start = 0;
  while (start <= path_list.size()) {
    size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    // An empty PATH entry means the current directory.
    std::string dir = end > start ? path_list.substr(start, end - start) : std::string(".");
    std::string cand = dir;
    cand += '/';
    cand += name;
    if (is_executable_file(cand)) return cand;
    start = end + 1;
  }
  return std::nullopt;
}

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string s;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i) s += ' ';
    s += shell_quote(argv[i]);
  }
  return s;
}

}  // namespace ptoc::codegen
