// Run folders are complete or marked incomplete (issue 12): artifacts go into
// output_<stamp>.partial/, renamed when the last file is written; readers skip
// a folder that keeps the .partial name.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/profiling/perf_analyze.h"
#include "runtime/profiling/run_folder.h"

using namespace ptoc::profiling;
namespace fs = std::filesystem;

namespace {
std::string fresh_base(const char* tag) {
  fs::path d = fs::temp_directory_path() / (std::string("ptoc_runs_") + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d.string();
}
void touch(const fs::path& p, const std::string& text = "{}") {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
}  // namespace

TEST_CASE("a run folder is created .partial and renamed when finished", "[profiling][run_folder]") {
  std::string base = fresh_base("finish");
  std::string partial = create_run_folder(base);
  REQUIRE(fs::is_directory(partial));
  REQUIRE(partial.size() > 8);
  REQUIRE(partial.substr(partial.size() - 8) == ".partial");
  REQUIRE(fs::path(partial).filename().string().rfind("output_", 0) == 0);
  REQUIRE(is_partial_run(partial));
  touch(fs::path(partial) / "a.json");
  std::string done = finish_run_folder(partial);
  REQUIRE(done == partial.substr(0, partial.size() - 8));
  REQUIRE(fs::exists(fs::path(done) / "a.json"));
  REQUIRE(!fs::exists(partial));
  REQUIRE(!is_partial_run(done));
  // Two runs in a row never share a name, partial or final.
  std::string p1 = create_run_folder(base), p2 = create_run_folder(base);
  REQUIRE(p1 != p2);
  fs::remove_all(base);
}

TEST_CASE("a base that is a file is an error naming it", "[profiling][run_folder]") {
  std::string base = fresh_base("file");
  touch(base, "not a folder");
  try {
    create_run_folder(base);
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    REQUIRE(std::string(e.what()) == "cannot create output folder in " + base + ": it is not a directory");
  }
  fs::remove_all(base);
}

TEST_CASE("the newest perf file skips incomplete runs and names them", "[profiling][run_folder]") {
  std::string base = fresh_base("skip");
  fs::path complete = fs::path(base) / "output_20260101_000000_000001_1_h";
  fs::path partial = fs::path(base) / "output_20260101_000001_000001_2_h.partial";
  touch(complete / "machine_trace_perf_data_0.json");
  touch(partial / "machine_trace_perf_data_0.json");
  // The partial one is newer: before the fix it was the one analyzed.
  fs::last_write_time(partial / "machine_trace_perf_data_0.json",
                      fs::last_write_time(complete / "machine_trace_perf_data_0.json") + std::chrono::seconds(10));
  std::vector<std::string> skipped;
  std::string f = find_newest_perf_file(base, &skipped);
  REQUIRE(f == (complete / "machine_trace_perf_data_0.json").string());
  REQUIRE(skipped == std::vector<std::string>{partial.string()});
  // Only incomplete runs: the usual "none found" error, the skipped run still named.
  fs::remove_all(complete);
  skipped.clear();
  REQUIRE_THROWS_WITH(find_newest_perf_file(base, &skipped), Catch::Contains("no machine_trace_perf_data_*.json"));
  REQUIRE(skipped.size() == 1);
  fs::remove_all(base);
}

#include <sys/wait.h>

#include <csignal>

#include "runtime/core/interrupt.h"

TEST_CASE("SIGINT and SIGTERM leave the folder .partial, say so on stderr and exit 130 / 143",
          "[profiling][run_folder][signals]") {
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    std::string base = fresh_base(sig == SIGINT ? "int" : "term");
    int err_pipe[2];
    REQUIRE(::pipe(err_pipe) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(err_pipe[1], 2);
      ptoc::interrupt::install("ptorun");
      std::string partial = create_run_folder(base);
      std::ofstream(partial + "/half.json") << "{\"traceEvents\": [";
      ptoc::interrupt::set_temp_file(partial + "/half.json.tmp.1");
      std::ofstream(partial + "/half.json.tmp.1") << "x";
      ::raise(sig);
      ::_exit(0);  // not reached
    }
    ::close(err_pipe[1]);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = ::read(err_pipe[0], buf, sizeof buf)) > 0;) err.append(buf, size_t(n));
    ::close(err_pipe[0]);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 128 + sig);
    REQUIRE(err.find(sig == SIGINT ? "ptorun: interrupted (SIGINT)" : "ptorun: terminated (SIGTERM)") != std::string::npos);
    REQUIRE(err.find(".partial is incomplete and keeps its .partial name") != std::string::npos);
    // The folder is still marked, the half-written file stays inside it, the temporary is gone.
    int folders = 0;
    for (auto& d : fs::directory_iterator(base)) {
      ++folders;
      REQUIRE(is_partial_run(d.path().string()));
      REQUIRE(fs::exists(d.path() / "half.json"));
      REQUIRE(!fs::exists(d.path() / "half.json.tmp.1"));
    }
    REQUIRE(folders == 1);
    fs::remove_all(base);
  }
}
