// program.json (PyPTO's compute-graph view, see compiler/codegen/graph_emit.cpp) from the compiled
// program: its EXECUTE_GRAPH functions follow from the root functions' tasks, so the bundle stores only
// the BLOCK_GRAPH functions (CompiledProgram::graph_blocks, one per kernel, rendered by the compiler)
// and ptorun writes the same text as ptoc from them (the tests compare the two over every library spec).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/json_out.h"
#include "runtime/program/compiled_program.h"

namespace ptoc::pjson {

inline constexpr int kExecuteGraph = 2, kBlockGraph = 3;

void dims(JsonOut& o, const std::vector<DimExpr>& v);
int pypto_datatype(DType t);   // PyPTO's DataType enum (function_json_convert.py)
std::string hash_text(uint64_t h);
// "l1ReuseInfo hashOrder: func8_0, subGraphCount: 24" as PyPTO's op_attr keys.
std::vector<std::pair<std::string, std::pair<std::string, int64_t>>> merge_attrs(const std::string& info);
const char* core_name(CoreType c);
// The GM tensors each kernel touches (over every task that calls a leaf of it), sorted.
std::vector<std::vector<int>> kernel_gm_tensors(const CompiledProgram& cp);
void put_raw_tensors(JsonOut& o, const CompiledProgram& cp, const std::vector<int>& used);

// The whole program.json: the EXECUTE_GRAPH functions from cp's tasks, then `blocks` as rendered.
// `ok` is false when a text is not well-formed UTF-8.
std::string assemble_program_json(const CompiledProgram& cp, const std::vector<std::string>& blocks, bool& ok);

}  // namespace ptoc::pjson

namespace ptoc {
// program.json of a compiled or loaded program: graph_json when set, else assembled from the tasks and
// graph_blocks; "" when the program has none.
std::string program_json_text(const CompiledProgram& cp);
}  // namespace ptoc
