// ${NAME} references in the pipeline file's Kafka settings, so that secrets (an Event Hubs
// connection string, a SASL password) live in the environment, never in the file.
#pragma once

#include <string>
#include <string_view>

namespace lakestream {

struct ExpandedText {
  std::string text;
  // Empty on success; else what is wrong, naming the variable but never a value:
  // "environment variable EVENTHUBS_CONNECTION_STRING is not set; ...".
  std::string problem;
};

// Replaces each ${NAME} with the environment variable NAME. A '$' not followed by '{' stays as
// it is ("$ConnectionString" is Event Hubs' literal SASL user name).
ExpandedText expand_env_vars(std::string_view text);

}  // namespace lakestream
