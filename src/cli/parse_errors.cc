#include "cli/parse_errors.h"

#include <cctype>
#include <regex>

namespace lakestream::cli {

namespace {

// The innermost command given on the line (the app itself when none was).
CLI::App* command_of(CLI::App& app) {
  CLI::App* command = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (CLI::App* sub : command->get_subcommands()) {
      command = sub;
      deeper = true;
      break;
    }
  }
  return command;
}

std::string full_name(const CLI::App* command) {
  std::string name;
  for (const CLI::App* at = command; at; at = at->get_parent())
    name = (at->get_parent() ? at->get_name() : "lakestream") + (name.empty() ? "" : " " + name);
  return name;
}

// CLI11's sentence, said plainly.
std::string plain(const CLI::ParseError& e) {
  std::string text = e.what();
  std::smatch m;
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    if (text == "A subcommand is required") return "say which command to run";
    if (std::regex_match(text, m, std::regex("(.+) is required"))) return m[1].str() + " is missing";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    if (std::regex_match(text, m, std::regex("(.+): \\d+ required .* missing"))) return m[1].str() + " needs a value";
  }
  if (std::regex_match(text, m, std::regex("The following arguments? (was|were) not expected: (.+)")))
    return "unexpected argument" + std::string(m[1] == "were" ? "s " : " ") + m[2].str();
  if (std::regex_match(text, m, std::regex("Could not convert: (.+) = (.+)")))
    return m[1].str() + ": '" + m[2].str() + "' is not a value it takes";
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

int report_parse_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err) {
  if (dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e) ||
      dynamic_cast<const CLI::CallForVersion*>(&e) || e.get_exit_code() == 0)
    return app.exit(e, out, err);
  CLI::App* command = command_of(app);
  std::string name = full_name(command);
  auto formatter = std::dynamic_pointer_cast<CLI::Formatter>(command->get_formatter());
  std::string usage = formatter ? formatter->make_usage(command, name) : "";
  if (usage.compare(0, 6, "Usage:") == 0) usage = "usage:" + usage.substr(6);
  err << name << ": " << plain(e) << "\n" << usage;
  if (usage.empty() || usage.back() != '\n') err << "\n";
  err << "(`" << name << " --help` says more)\n";
  return 2;
}

}  // namespace lakestream::cli
