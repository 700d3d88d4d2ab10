// The dashboard's single HTML page (inline CSS and JavaScript), kept apart from the server code.
#pragma once

#include <string>

namespace lakestream {

const std::string& dashboard_page();

}  // namespace lakestream
