// Incremental JSON decoding; see json_stream.h.
#include "runtime/program/json_stream.h"

#include <utility>

namespace ptoc::runtime {

namespace {

using json = nlohmann::json;

// nlohmann's SAX events -> streamed containers (a path of steps) and captured values (a DOM built
// with a stack of the open containers, as json::parse builds one).
class Handler {
 public:
  Handler(JsonStreamReader& r, JsonNumbers numbers) : r_(r), numbers_(numbers) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    if (numbers_ == JsonNumbers::integers_only) throw std::runtime_error(float_refusal(text));
    return scalar(json(v));
  }
  bool string(json::string_t& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t& v) { return scalar(json::binary(std::move(v))); }

  bool key(json::string_t& k) {
    if (capturing()) key_ = std::move(k);
    else path_.back().key = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    throw JsonSyntaxError(ex.what());
  }

 private:
  bool capturing() const { return !stack_.empty(); }

  // The next member or element of the innermost streamed container.
  void advance() {
    if (!path_.empty() && path_.back().in_array) ++path_.back().index;
  }

  // Where a new value goes inside the captured container being built.
  json& place(json&& v) {
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return top.back();
    }
    json& slot = top[key_];
    slot = std::move(v);
    return slot;
  }

  bool scalar(json&& v) {
    if (capturing()) {
      place(std::move(v));
      return true;
    }
    r_.value(path_, std::move(v));
    advance();
    return true;
  }

  bool open(bool is_array) {
    json v(is_array ? json::value_t::array : json::value_t::object);
    if (capturing()) {
      stack_.push_back(&place(std::move(v)));
      return true;
    }
    if (r_.stream(path_, is_array)) {
      path_.push_back(JsonStep{is_array, {}, 0});
      return true;
    }
    captured_ = std::move(v);
    stack_.push_back(&captured_);
    return true;
  }

  bool close() {
    if (capturing()) {
      stack_.pop_back();
      if (capturing()) return true;
      json done = std::move(captured_);
      captured_ = json();
      r_.value(path_, std::move(done));
      advance();
      return true;
    }
    path_.pop_back();
    r_.end(path_);
    advance();
    return true;
  }

  JsonStreamReader& r_;
  JsonNumbers numbers_;
  JsonPath path_;              // per streamed container, the step of its current member or element
  json captured_;              // the value being captured ...
  std::vector<json*> stack_;   // ... and its open containers, innermost last
  std::string key_;            // the key of the next member of the innermost captured object
};

}  // namespace

std::string float_refusal(const std::string& text) {
  return "the number " + text.substr(0, 40) + " is not a 64-bit integer (a fraction, an exponent or too many digits), "
         "and a bundle holds nothing else";
}

void parse_json_stream(const uint8_t* first, const uint8_t* last, JsonStreamReader& r, JsonNumbers numbers) {
  Handler h(r, numbers);
  json::sax_parse(first, last, &h);
}

void parse_json_stream(std::istream& in, JsonStreamReader& r, JsonNumbers numbers) {
  Handler h(r, numbers);
  json::sax_parse(in, &h);
}

}  // namespace ptoc::runtime
