// ${NAME} substitution from the process environment.
#include "pipeline/env_vars.h"

#include <cctype>
#include <cstdlib>

namespace lakestream {
namespace {

bool is_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

ExpandedText expand_env_vars(std::string_view text) {
  ExpandedText result;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t dollar = text.find("${", pos);
    if (dollar == std::string_view::npos) {
      result.text += text.substr(pos);
      break;
    }
    result.text += text.substr(pos, dollar - pos);
    size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      result.problem = "'${' has no closing '}'; write ${NAME} to use the environment variable NAME";
      return result;
    }
    std::string name(text.substr(dollar + 2, close - dollar - 2));
    if (!is_variable_name(name)) {
      result.problem = "'${" + name + "}' is not a variable reference; write ${NAME} with NAME made of letters, digits and _";
      return result;
    }
    const char* value = std::getenv(name.c_str());
    if (!value) {
      result.problem = "environment variable " + name + " is not set; export it before running lakestream";
      return result;
    }
    result.text += value;
    pos = close + 1;
  }
  return result;
}

}  // namespace lakestream
