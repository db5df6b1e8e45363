#include "compiler/diag.h"

#include <algorithm>
#include <sstream>

namespace ptoc {

DiagEngine::DiagEngine(std::string file, std::string source) : file_(std::move(file)), source_(std::move(source)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < source_.size(); ++i)
    if (source_[i] == '\n') line_starts_.push_back(i + 1);
}

void DiagEngine::error(SrcLoc loc, std::string message, std::string hint, int length) {
  if (full()) return;
  diags_.push_back({Diagnostic::Severity::Error, loc, std::max(1, length), std::move(message), std::move(hint), {}});
  ++errors_;
}
void DiagEngine::error_in(std::string origin, std::string message, std::string hint) {
  if (full()) return;
  diags_.push_back({Diagnostic::Severity::Error, SrcLoc{}, 1, std::move(message), std::move(hint), std::move(origin)});
  ++errors_;
}
void DiagEngine::warning(SrcLoc loc, std::string message, std::string hint, int length) {
  diags_.push_back({Diagnostic::Severity::Warning, loc, std::max(1, length), std::move(message), std::move(hint), {}});
}
void DiagEngine::note(SrcLoc loc, std::string message, int length) {
  diags_.push_back({Diagnostic::Severity::Note, loc, std::max(1, length), std::move(message), {}, {}});
}

std::string DiagEngine::line_text(int n) const {
  if (n < 1 || size_t(n) > line_starts_.size()) return {};
  size_t b = line_starts_[n - 1];
  size_t e = source_.find('\n', b);
  if (e == std::string::npos) e = source_.size();
  std::string s = source_.substr(b, e - b);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

namespace {
// Quoting limits of rendered diagnostics: lines and messages that quote spec
// text (a statement of megabytes) are cut, with "..." where text was left out.
constexpr size_t kMaxQuotedLine = 240;
constexpr size_t kQuoteContext = 100;
constexpr size_t kMaxMessage = 2000;
std::string bounded(const std::string& m) {
  if (m.size() <= kMaxMessage) return m;
  return m.substr(0, kMaxMessage / 2) + " ... " + m.substr(m.size() - kMaxMessage / 4);
}
}  // namespace

std::string DiagEngine::render(const Diagnostic& d) const {
  std::ostringstream os;
  const char* sev = d.severity == Diagnostic::Severity::Error ? "error"
                    : d.severity == Diagnostic::Severity::Warning ? "warning" : "note";
  os << (d.origin.empty() ? file_ : d.origin);
  if (d.origin.empty() && d.loc.valid()) os << ':' << d.loc.line << ':' << d.loc.col;
  os << ": " << sev << ": " << bounded(d.message) << '\n';
  if (d.origin.empty() && d.loc.valid()) {
    std::string text = line_text(d.loc.line);
    int col = d.loc.col;
    size_t length = size_t(d.length);
    // A very long line (a minified or generated spec) is quoted as a window
    // around the column, so a 10 MB line gives a short message.
    if (text.size() > kMaxQuotedLine) {
      size_t c = size_t(std::max(1, col) - 1);
      size_t from = c > kQuoteContext ? c - kQuoteContext : 0;
      size_t to = std::min(text.size(), from + 2 * kQuoteContext);
      std::string head = from > 0 ? "..." : "", tail = to < text.size() ? "..." : "";
      text = head + text.substr(from, to - from) + tail;
      col = int(c - from + head.size()) + 1;
    }
    length = std::min(length, kMaxQuotedLine);
    os << text << '\n';
    // Keep tabs so the caret lines up under the token.
    std::string pad;
    for (int i = 0; i + 1 < col && size_t(i) < text.size(); ++i) pad += text[size_t(i)] == '\t' ? '\t' : ' ';
    for (int i = int(text.size()); i + 1 < col; ++i) pad += ' ';
    os << pad << '^' << std::string(length - 1, '~') << '\n';
  }
  if (!d.hint.empty()) os << "hint: " << bounded(d.hint) << '\n';
  return os.str();
}

void DiagEngine::print(std::ostream& os) const {
  for (const auto& d : diags_) os << render(d);
  if (errors_ > 1) os << errors_ << " errors generated." << (full() ? " (stopped after 20)" : "") << '\n';
}

}  // namespace ptoc
