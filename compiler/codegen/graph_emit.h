// Views of the compiled program for people and tools: program.json in the
// shape PyPTO's compute-graph view and swimlane scripts read (functions[]
// with hash, func_magicname, graphtype, tensors, rawtensors, operations with
// opmagic, ioperands, ooperands, calleehash, semantic_label, op_attr), and a
// Graphviz DOT of the task graphs.
#pragma once
#include <string>
#include <vector>

#include "compiler/pipeline.h"

namespace ptoc {

std::string emit_program_json(const PipelineResult& r);
// Its BLOCK_GRAPH functions as rendered (CompiledProgram::graph_blocks; the bundle stores these and
// ptorun rebuilds the rest from the tasks, runtime/program/program_json.h).
std::vector<std::string> emit_program_json_blocks(const PipelineResult& r);
// The same text through nlohmann's JSON DOM: the reference the tests compare
// emit_program_json against, and its fallback for text that is not UTF-8.
std::string emit_program_json_reference(const PipelineResult& r);
std::string emit_graph_dot(const PipelineResult& r);

}  // namespace ptoc
