// compiler/codegen/device_build: the bisheng command lines as golden text
// (what `ptoc --print-device-commands` prints), the toolkit lookup and its
// "what is missing" messages, and the build driven through a stand-in
// bisheng (a shell script) since no CANN toolkit exists here.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/codegen/device_build.h"

namespace fs = std::filesystem;
using namespace ptoc;
using namespace ptoc::codegen;

namespace {

std::vector<Kernel> two_kernels() {
  Kernel cube;
  cube.name = "gemm_0_1";
  cube.core = CoreType::AIC;
  cube.source = "// cube\n";
  Kernel vec;
  vec.name = "softmax_2_0";
  vec.core = CoreType::AIV;
  vec.source = "// vec\n";
  return {cube, vec};
}

DeviceBuildOptions golden_opts() {
  DeviceBuildOptions o;
  o.source_dir = "out/kernels";
  o.output_dir = "out/obj";
  o.kernels_dir = "/opt/ptoc/include/ptoc/kernels";
  return o;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/ptoc-db-test-XXXXXX";
    REQUIRE(mkdtemp(t));
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("device commands for A2/A3 (dav-c220) are golden", "[codegen][device_build]") {
  const Platform* p = find_platform("ascend910b1");
  REQUIRE(p);
  auto cmds = device_compile_commands(two_kernels(), *p, "bisheng", golden_opts());
  REQUIRE(cmds.size() == 2);
  REQUIRE(cmds[0].arch == "dav-c220-cube");
  REQUIRE(cmds[1].arch == "dav-c220-vec");
  REQUIRE(format_device_commands(cmds) ==
          "bisheng -c -O3 -x cce -std=c++17 --cce-aicore-only --cce-aicore-arch=dav-c220-cube "
          "-mllvm -cce-aicore-stack-size=0x8000 -mllvm -cce-aicore-function-stack-size=0x8000 "
          "-mllvm -cce-aicore-record-overflow=false -mllvm -cce-aicore-addr-transform -D__AIC__ -D__DAV_V220 "
          "-DMEMORY_BASE -I/opt/ptoc/include/ptoc/kernels -I/opt/ptoc/include/ptoc out/kernels/gemm_0_1.cce "
          "-o out/obj/gemm_0_1.o\n"
          "bisheng -c -O3 -x cce -std=c++17 --cce-aicore-only --cce-aicore-arch=dav-c220-vec "
          "-mllvm -cce-aicore-stack-size=0x8000 -mllvm -cce-aicore-function-stack-size=0x8000 "
          "-mllvm -cce-aicore-record-overflow=false -mllvm -cce-aicore-addr-transform -D__AIV__ -D__DAV_V220 "
          "-DMEMORY_BASE -I/opt/ptoc/include/ptoc/kernels -I/opt/ptoc/include/ptoc out/kernels/softmax_2_0.cce "
          "-o out/obj/softmax_2_0.o\n");
}

TEST_CASE("device commands for 950 (dav-c310) are golden", "[codegen][device_build]") {
  const Platform* p = find_platform("ascend950pr");
  REQUIRE(p);
  auto cmds = device_compile_commands(two_kernels(), *p, "/cann/compiler/ccec_compiler/bin/bisheng", golden_opts());
  REQUIRE(format_device_commands(cmds) ==
          "/cann/compiler/ccec_compiler/bin/bisheng -c -O3 -x cce -std=c++17 --cce-aicore-only "
          "--cce-aicore-arch=dav-c310-cube -mllvm -cce-aicore-stack-size=0x8000 "
          "-mllvm -cce-aicore-function-stack-size=0x8000 -mllvm -cce-aicore-record-overflow=false "
          "-mllvm -cce-aicore-addr-transform -D__AIC__ -D__DAV_V310 -DREGISTER_BASE "
          "-I/opt/ptoc/include/ptoc/kernels -I/opt/ptoc/include/ptoc out/kernels/gemm_0_1.cce -o out/obj/gemm_0_1.o\n"
          "/cann/compiler/ccec_compiler/bin/bisheng -c -O3 -x cce -std=c++17 --cce-aicore-only "
          "--cce-aicore-arch=dav-c310-vec -mllvm -cce-aicore-stack-size=0x8000 "
          "-mllvm -cce-aicore-function-stack-size=0x8000 -mllvm -cce-aicore-record-overflow=false "
          "-mllvm -cce-aicore-addr-transform -D__AIV__ -D__DAV_V310 -DREGISTER_BASE --cce-long-scbz=true "
          "-I/opt/ptoc/include/ptoc/kernels -I/opt/ptoc/include/ptoc out/kernels/softmax_2_0.cce "
          "-o out/obj/softmax_2_0.o\n");
}

TEST_CASE("toolkit lookup says what is missing", "[codegen][device_build]") {
  CannToolkit none = find_cann_toolkit("", nullptr, nullptr);
  REQUIRE_FALSE(none.found);
  REQUIRE(none.missing ==
          "no CANN toolkit: ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are not set and no --cann DIR was given "
          "(source the toolkit's set_env.sh, e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh, or pass --cann DIR)");

  CannToolkit gone = find_cann_toolkit("", "/nonexistent/ascend", "/other");
  REQUIRE_FALSE(gone.found);
  REQUIRE(gone.source == "ASCEND_HOME_PATH");
  REQUIRE(gone.missing == "the CANN toolkit directory /nonexistent/ascend (from ASCEND_HOME_PATH) does not exist");

  TempDir d;
  CannToolkit empty = find_cann_toolkit("", nullptr, d.path.c_str());
  REQUIRE_FALSE(empty.found);
  REQUIRE(empty.source == "ASCEND_TOOLKIT_HOME");
  REQUIRE(empty.missing == "the CANN toolkit at " + d.path.string() +
                               " (from ASCEND_TOOLKIT_HOME) has no bisheng (looked in compiler/ccec_compiler/bin, "
                               "bin, tools/ccec_compiler/bin)");

  const Platform* p = find_platform("ascend910b1");
  DeviceBuildResult r = build_device_kernels(two_kernels(), *p, none);
  REQUIRE(r.status == DeviceBuildStatus::NoToolkit);
  REQUIRE(device_build_status_name(r.status) == "no-toolkit");
  REQUIRE(r.message == none.missing);
  REQUIRE(r.objects.empty());
}

TEST_CASE("with a toolkit, bisheng runs once per kernel and the objects come back", "[codegen][device_build]") {
  // A stand-in bisheng: writes "<arch> <source text>" to the -o file.
  TempDir d;
  fs::path bin = d.path / "compiler" / "ccec_compiler" / "bin";
  fs::create_directories(bin);
  fs::path fake = bin / "bisheng";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "arch=; out=; src=\n"
                         "while [ $# -gt 0 ]; do case \"$1\" in\n"
                         "  --cce-aicore-arch=*) arch=${1#--cce-aicore-arch=};;\n"
                         "  -o) shift; out=$1;;\n"
                         "  *.cce) src=$1;;\n"
                         "esac; shift; done\n"
                         "grep -q FAIL \"$src\" && { echo \"$src:1: error: bad kernel\" >&2; exit 1; }\n"
                         "printf '%s ' \"$arch\" > \"$out\"; cat \"$src\" >> \"$out\"\n";
  chmod(fake.c_str(), 0755);
  CannToolkit tk = find_cann_toolkit(d.path.string(), nullptr, nullptr);
  REQUIRE(tk.found);
  REQUIRE(tk.source == "--cann");
  REQUIRE(tk.bisheng == fake.string());

  const Platform* p = find_platform("ascend910_9391");
  DeviceBuildResult r = build_device_kernels(two_kernels(), *p, tk, 2);
  INFO(r.message);
  REQUIRE(r.status == DeviceBuildStatus::Built);
  REQUIRE(r.objects.size() == 2);
  REQUIRE(r.objects[0].kernel == "gemm_0_1");
  REQUIRE(r.objects[0].core == CoreType::AIC);
  REQUIRE(std::string(r.objects[0].bytes.begin(), r.objects[0].bytes.end()) == "dav-c220-cube // cube\n");
  REQUIRE(std::string(r.objects[1].bytes.begin(), r.objects[1].bytes.end()) == "dav-c220-vec // vec\n");

  auto ks = two_kernels();
  ks[1].source = "FAIL\n";
  DeviceBuildResult bad = build_device_kernels(ks, *p, tk, 1);
  REQUIRE(bad.status == DeviceBuildStatus::Failed);
  REQUIRE(bad.message.find("bisheng failed on kernel softmax_2_0") == 0);
  REQUIRE(bad.message.find("error: bad kernel") != std::string::npos);
}
