#include "decode/debezium_envelope.h"

#include <cctype>
#include <optional>
#include <vector>

namespace lakestream {

namespace {

// A validating walk over JSON text that gives each member's value as the span of text it was
// written as: only the envelope's few members are looked into, the row is copied as it is.
class JsonSpans {
 public:
  explicit JsonSpans(std::string_view text) : at_(text.data()), end_(text.data() + text.size()) {}

  struct Member {
    std::string_view name;   // as written between the quotes (escapes kept)
    std::string_view value;  // the value's text
  };

  // The members of the object that is the whole text; nullopt when the text is not one valid
  // JSON value, or not an object (`is_object` tells which).
  std::optional<std::vector<Member>> object_members(bool& is_object) {
    skip_space();
    is_object = at_ < end_ && *at_ == '{';
    std::vector<Member> members;
    if (!is_object) {
      if (!skip_value()) return std::nullopt;
    } else if (!read_container('}', &members)) {
      return std::nullopt;
    }
    skip_space();
    if (at_ != end_ || !is_object) return std::nullopt;
    return members;
  }

 private:
  void skip_space() {
    while (at_ < end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) at_++;
  }

  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - at_) < word.size() || std::string_view(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  bool read_string(std::string_view* contents) {
    const char* start = ++at_;
    while (at_ < end_ && *at_ != '"') {
      auto c = static_cast<unsigned char>(*at_);
      if (c < 0x20) return false;
      if (c == '\\') {
        if (++at_ >= end_) return false;
        if (*at_ == 'u') {
          for (int i = 0; i < 4; i++)
            if (++at_ >= end_ || !std::isxdigit(static_cast<unsigned char>(*at_))) return false;
        } else if (std::string_view("\"\\/bfnrt").find(*at_) == std::string_view::npos) {
          return false;
        }
      }
      at_++;
    }
    if (at_ >= end_) return false;
    if (contents) *contents = std::string_view(start, static_cast<size_t>(at_ - start));
    at_++;
    return true;
  }

  bool digits() {
    const char* start = at_;
    while (at_ < end_ && std::isdigit(static_cast<unsigned char>(*at_))) at_++;
    return at_ > start;
  }

  bool read_number() {
    if (*at_ == '-') at_++;
    if (!digits()) return false;
    if (at_ < end_ && *at_ == '.' && (++at_, !digits())) return false;
    if (at_ < end_ && (*at_ == 'e' || *at_ == 'E')) {
      at_++;
      if (at_ < end_ && (*at_ == '+' || *at_ == '-')) at_++;
      if (!digits()) return false;
    }
    return true;
  }

  // An object (close '}': members, each kept when `members` is given) or an array (close ']':
  // values), from its opening bracket through its closing one.
  bool read_container(char close, std::vector<Member>* members) {
    at_++;
    skip_space();
    if (at_ < end_ && *at_ == close) return ++at_, true;
    while (true) {
      skip_space();
      Member member;
      if (close == '}') {
        if (at_ >= end_ || *at_ != '"' || !read_string(&member.name)) return false;
        skip_space();
        if (at_ >= end_ || *at_++ != ':') return false;
        skip_space();
      }
      const char* value_at = at_;
      if (!skip_value()) return false;
      member.value = std::string_view(value_at, static_cast<size_t>(at_ - value_at));
      if (members) members->push_back(member);
      skip_space();
      if (at_ < end_ && *at_ == ',') {
        at_++;
        continue;
      }
      if (at_ < end_ && *at_ == close) return ++at_, true;
      return false;
    }
  }

  // Nesting is bounded so that a hostile value cannot exhaust the stack.
  bool skip_value() {
    if (at_ >= end_) return false;
    switch (*at_) {
      case '{':
      case '[': {
        if (++depth_ > 512) return false;
        bool ok = read_container(*at_ == '{' ? '}' : ']', nullptr);
        depth_--;
        return ok;
      }
      case '"': return read_string(nullptr);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return read_number();
    }
  }

  const char* at_;
  const char* end_;
  int depth_ = 0;
};

using Members = std::vector<JsonSpans::Member>;

std::optional<std::string_view> member(const Members& members, std::string_view name) {
  for (const auto& m : members)
    if (m.name == name) return m.value;
  return std::nullopt;
}

bool is_null(std::optional<std::string_view> value) { return !value || *value == "null"; }

// The members of a value that is an object, else nullopt.
std::optional<Members> members_of(std::string_view value) {
  if (value.empty() || value.front() != '{') return std::nullopt;
  bool is_object = false;
  return JsonSpans(value).object_members(is_object);
}

// source.ts_ms or source.lsn as JSON: the integer as written, else null (absent, or not an
// integer, as SQL Server's "change_lsn" strings are).
std::string position_member(const std::optional<Members>& source, std::string_view name) {
  if (!source) return "null";
  auto value = member(*source, name);
  if (!value || value->empty()) return "null";
  size_t digits_at = value->front() == '-' ? 1 : 0;
  if (digits_at == value->size()) return "null";
  for (size_t i = digits_at; i < value->size(); i++)
    if (!std::isdigit(static_cast<unsigned char>((*value)[i]))) return "null";
  return std::string(*value);
}

}  // namespace

ChangeEvent read_change_event(std::string_view value, std::string& row, std::string& reason) {
  bool is_object = false;
  auto envelope = JsonSpans(value).object_members(is_object);
  if (!envelope) {
    reason = is_object ? "not valid JSON" : "not a JSON object";
    return ChangeEvent::Refused;
  }
  // schemas.enable=true: the event is the payload beside its schema.
  auto payload = member(*envelope, "payload");
  if (payload && !member(*envelope, "op")) {
    if (is_null(payload)) return ChangeEvent::Tombstone;
    envelope = members_of(*payload);
    if (!envelope) {
      reason = "not a Debezium change event: \"payload\" is not an object";
      return ChangeEvent::Refused;
    }
  }
  auto op_value = member(*envelope, "op");
  if (!op_value) {
    reason = "not a Debezium change event: no \"op\" member (envelope = \"debezium\" reads Debezium's change events: "
             "op, before, after, source)";
    return ChangeEvent::Refused;
  }
  std::string_view op = *op_value;
  if (op.size() >= 2 && op.front() == '"' && op.back() == '"') op = op.substr(1, op.size() - 2);
  std::string_view row_member;
  if (op == "c" || op == "r" || op == "u") {
    row_member = "after";
  } else if (op == "d") {
    row_member = "before";
  } else if (op == "t") {
    reason = "a truncate (op \"t\") is not applied: the table's rows are deleted one by one only; to empty it, "
             "start its stream over with a new checkpoint";
    return ChangeEvent::Refused;
  } else {
    std::string shown(op_value->substr(0, 40));
    reason = "change event op " + shown + " is not c (create), r (read), u (update) or d (delete)";
    return ChangeEvent::Refused;
  }
  auto row_value = member(*envelope, row_member);
  std::optional<Members> row_members = is_null(row_value) ? std::nullopt : members_of(*row_value);
  if (!row_members) {
    reason = "change event op \"" + std::string(op) + "\" has no \"" + std::string(row_member) + "\" row" +
             (op == "d" ? " to take the key from (Postgres: set the table's REPLICA IDENTITY so that deletes carry "
                          "the key)"
                        : "");
    return ChangeEvent::Refused;
  }
  auto source_value = member(*envelope, "source");
  std::optional<Members> source = is_null(source_value) ? std::nullopt : members_of(*source_value);
  // The added members come first: of a member written twice the first counts (docs of the
  // decoders), so a row's own "_op" cannot stand in for the event's.
  row.assign("{\"_op\":\"");
  row += op;
  row += "\",\"_source_ts_ms\":";
  row += position_member(source, "ts_ms");
  row += ",\"_source_lsn\":";
  row += position_member(source, "lsn");
  std::string_view inner = row_value->substr(1, row_value->size() - 2);  // between the braces
  if (!row_members->empty()) row += ',';
  row += inner;
  row += '}';
  return ChangeEvent::Row;
}

}  // namespace lakestream
