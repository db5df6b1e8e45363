// JSON text of the Machine View's events written directly, byte for byte what nlohmann's dump() writes
// for the ordered_json the swimlane writer used to build per event (same keys in the same order,
// integers in decimal, doubles through nlohmann's own to_chars or "null" when not finite, strings
// escaped as dump() escapes them). A large run's merged_swimlane.json is millions of small events
// (hc_pre T=1024: 292 000 flows of 303 000; the attention prolog: 31 000 slices of ~1 KB), and a
// JSON tree per event cost more than the simulation itself.
#pragma once
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <string_view>

#include <fmt/format.h>

namespace ptoc::profiling {

// `value` as nlohmann's serializer writes a number_float.
inline void append_json_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, size_t(end - buf));
}

inline void append_json_int(std::string& out, int64_t value) { fmt::format_to(std::back_inserter(out), "{}", value); }

// `s` as a JSON string the way dump() writes it (ensure_ascii off): ", \ and control characters escaped
// (\b \t \n \f \r, else \u00xx), the rest copied. Text with a non-ASCII byte goes through nlohmann
// itself, so its UTF-8 checks (and their error) stay exactly dump()'s.
inline void append_json_string(std::string& out, std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) {
      out += nlohmann::ordered_json(std::string(s)).dump();
      return;
    }
  out += '"';
  size_t from = 0;  // start of the run of bytes copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c != '"' && c != '\\' && c > 0x1f) continue;
    out.append(s.data() + from, i - from);
    from = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", unsigned(c));
    }
  }
  out.append(s.data() + from, s.size() - from);
  out += '"';
}

// {"cat":..,"id":..,"name":..,"ph":"s","pid":1,"tid":..,"ts":..} (start) or the same with "bp":"e"
// first and ph "f" (finish).
inline void append_flow_event(std::string& out, bool finish, int64_t id, int64_t tid, double ts) {
  out += finish ? R"({"bp":"e","cat":"machine-view-last-dep","id":)" : R"({"cat":"machine-view-last-dep","id":)";
  append_json_int(out, id);
  out += finish ? R"(,"name":"machine-view-last-dep","ph":"f","pid":1,"tid":)"
                : R"(,"name":"machine-view-last-dep","ph":"s","pid":1,"tid":)";
  append_json_int(out, tid);
  out += R"(,"ts":)";
  append_json_double(out, ts);
  out += '}';
}

// {"name":..,"pid":1,"tid":1,"ph":"C","ts":..,"args":{"size":..}} with an integer or a double size.
template <typename Size>
inline void append_counter_event(std::string& out, std::string_view name, double ts, Size size) {
  static_assert(std::is_same_v<Size, int64_t> || std::is_same_v<Size, double>);
  out += R"({"name":)";
  append_json_string(out, name);
  out += R"(,"pid":1,"tid":1,"ph":"C","ts":)";
  append_json_double(out, ts);
  out += R"(,"args":{"size":)";
  if constexpr (std::is_same_v<Size, int64_t>) append_json_int(out, size);
  else append_json_double(out, size);
  out += "}}";
}

}  // namespace ptoc::profiling
