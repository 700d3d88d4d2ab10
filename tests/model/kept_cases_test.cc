// Cases the differential test once failed on, kept as files (tests/data/model/*.json: the
// pipeline's shape and the events of each send) and replayed against the model every time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/case_driver.h"
#include "model/case_file.h"
#include "support/test_support.h"

namespace lakestream::model {
namespace {

class KeptCase : public ::testing::TestWithParam<std::string> {};

TEST_P(KeptCase, AgreesWithTheModel) {
  std::ifstream in(testing::test_data_dir() + "/model/" + GetParam() + ".json");
  ASSERT_TRUE(in) << GetParam();
  nlohmann::json j = nlohmann::json::parse(in);
  SCOPED_TRACE(j.value("why", std::string()));
  Case c = case_from_json(j);
  // Check after the last run only: a table that differs is found before a check that fails.
  CaseOutcome outcome = play_case(shared_broker(), c, false);
  EXPECT_EQ(outcome.failure, "") << describe_case(c);
}

std::vector<std::string> kept_cases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(testing::test_data_dir() + "/model"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Files, KeptCase, ::testing::ValuesIn(kept_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace lakestream::model
