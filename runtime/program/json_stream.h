// Incremental JSON decoding (issue 12: a bundle's memory must not be its bytes x 30). nlohmann's
// DOM of a JSON text takes about 30 times the text (a 865 MB roots section needs more than 24 GB);
// this reader walks the text with nlohmann's SAX parser (iterative, so nesting cannot overflow the
// stack) and builds a DOM only for the parts the caller asks for, handing each one over as soon as
// it is complete: a list of a million instance records is decoded one record at a time, and only
// the decoded records stay.
//
// The caller says, for every container the text opens, whether to stream it (walk into it: its
// members or elements are visited in turn) or to capture it (build it as one value); scalars are
// always captured. A streamed container's members that are captured arrive through value(), in
// text order; its end through end().
#pragma once
#include <cstddef>
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptoc::runtime {

// Where a value sits: the keys and indices from the document's root down to it.
struct JsonStep {
  bool in_array = false;
  std::string key;    // in an object: the member's key
  size_t index = 0;   // in an array: the element's index
};
using JsonPath = std::vector<JsonStep>;

class JsonStreamReader {
 public:
  virtual ~JsonStreamReader() = default;
  // A container starts at `path` (empty: the document itself): true to walk into it.
  virtual bool stream(const JsonPath& path, bool is_array) = 0;
  // A captured value at `path` is complete (moved out: the reader keeps nothing of it).
  virtual void value(const JsonPath& path, nlohmann::json&& v) = 0;
  // A streamed container at `path` ends.
  virtual void end(const JsonPath& path) { (void)path; }
};

// A syntax error of the text (its what() is json::parse's message), told apart from what the
// reader throws about content.
struct JsonSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether a number that is not a 64-bit integer (a fraction, an exponent, or more digits than 64 bits
// hold, which nlohmann reads as a double) is a value or an error: a bundle holds 64-bit integers
// only, and nlohmann's get<int>() of a double beyond int's range is undefined behaviour (a fuzzed
// bundle with 92233720368547758071 for a value group), so its reader refuses every such number.
enum class JsonNumbers { any, integers_only };

// Parses [first, last) and drives `r`. A syntax error throws JsonSyntaxError; a float under
// integers_only std::runtime_error naming it; whatever `r` throws propagates.
void parse_json_stream(const uint8_t* first, const uint8_t* last, JsonStreamReader& r,
                       JsonNumbers numbers = JsonNumbers::any);
// The same over a stream (read to its end: anything after the value is a syntax error).
void parse_json_stream(std::istream& in, JsonStreamReader& r, JsonNumbers numbers = JsonNumbers::any);

// The message for such a number, e.g. "9.2e19".
std::string float_refusal(const std::string& text);

}  // namespace ptoc::runtime
