#include "source/kinesis_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "storage/base64.h"
#include "storage/credentials.h"
#include "storage/http_client.h"

namespace lakestream {

namespace {

// Kinesis allows 5 reads a second per shard, and 5 (ListShards: 100) control calls a second per
// stream; a throttled call waits 200 ms, 400 ms ... up to 5 s between tries, this many times.
constexpr int kThrottledAttempts = 16;
// Kinesis answers in milliseconds; a call unanswered for 30 s is tried again, 4 times in all.
constexpr long kCallTimeoutMs = 30000;
constexpr int kAttempts = 4;

bool is_throttling(const std::string& code) {
  return code == "ProvisionedThroughputExceededException" || code == "LimitExceededException" ||
         code == "ThrottlingException";
}

// Kinesis's error name without a namespace ("com.amazon.coral.service#ExpiredIteratorException").
std::string error_code(const nlohmann::json& body) {
  std::string type = body.is_object() ? body.value("__type", "") : "";
  size_t hash = type.rfind('#');
  return hash == std::string::npos ? type : type.substr(hash + 1);
}

std::string hint_for(const std::string& code, const std::string& stream) {
  if (code == "ResourceNotFoundException")
    return "; create the stream, or fix `kinesis` (and `region`: streams are per region)";
  if (code == "UnrecognizedClientException" || code == "InvalidSignatureException" || code == "AccessDeniedException" ||
      code == "IncompleteSignature" || code == "MissingAuthenticationToken")
    return "; check the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the profile) and that they may read " +
           stream + " (kinesis:ListShards, GetShardIterator, GetRecords)";
  return "";
}

}  // namespace

std::chrono::steady_clock::duration read_spacing_after(const KinesisRecords& got) {
  constexpr double kBytesPerSecond = 2'000'000;
  size_t bytes = 0;
  for (const auto& r : got.records) bytes += r.data.size() + r.partition_key.size();
  auto by_bytes = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(static_cast<double>(bytes) / kBytesPerSecond));
  return std::max<std::chrono::steady_clock::duration>(kKinesisReadSpacing, by_bytes);
}

int compare_sequences(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

int32_t KinesisClient::shard_number(const std::string& shard_id) {
  const std::string prefix = "shardId-";
  bool ok = shard_id.size() > prefix.size() && shard_id.size() <= prefix.size() + 12 &&
            shard_id.compare(0, prefix.size(), prefix) == 0 &&
            std::all_of(shard_id.begin() + static_cast<std::ptrdiff_t>(prefix.size()), shard_id.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  int64_t n = ok ? std::stoll(shard_id.substr(prefix.size())) : -1;
  if (!ok || n > INT32_MAX)
    throw Error("Kinesis shard id '" + shard_id + "' is not of the form shardId-NNNNNNNNNNNN, which bronze's partition "
                "column numbers shards by");
  return static_cast<int32_t>(n);
}

struct KinesisClient::Impl {
  storage::AwsSettings aws;
  storage::HttpClient http;
};

KinesisClient::KinesisClient(const KinesisSettings& settings) : impl_(std::make_unique<Impl>()), stream_(settings.stream) {
  storage::StoreSettings store;
  if (!settings.region.empty()) store["region"] = settings.region;
  impl_->aws = storage::resolve_aws(store, "Kinesis stream " + settings.stream, "Kinesis");
  endpoint_ = settings.endpoint;
  if (endpoint_.empty()) endpoint_ = storage::setting_or_env({}, "endpoint", {"AWS_ENDPOINT_URL_KINESIS", "AWS_ENDPOINT_URL"});
  if (endpoint_.empty()) endpoint_ = "https://kinesis." + impl_->aws.region + ".amazonaws.com";
  while (!endpoint_.empty() && endpoint_.back() == '/') endpoint_.pop_back();
}

KinesisClient::~KinesisClient() = default;

std::string KinesisClient::call(const std::string& operation, const std::string& body) {
  std::string what = "Kinesis " + operation + " on stream " + stream_ + " at " + endpoint_;
  std::mt19937 jitter(std::random_device{}());
  for (int attempt = 1;; attempt++) {
    storage::HttpResponse r = impl_->http.send(
        [&] {
          storage::HttpRequest request;
          request.method = "POST";
          request.url = endpoint_ + "/";
          request.headers = {{"Content-Type", "application/x-amz-json-1.1"},
                             {"X-Amz-Target", "Kinesis_20131202." + operation}};
          if (!impl_->aws.session_token.empty()) request.headers.emplace_back("X-Amz-Security-Token", impl_->aws.session_token);
          request.body = body;
          request.aws_sigv4 = "aws:amz:" + impl_->aws.region + ":kinesis";
          request.aws_key_secret = impl_->aws.access_key_id + ":" + impl_->aws.secret_access_key;
          request.timeout_ms = kCallTimeoutMs;
          request.store_request = false;
          return request;
        },
        what, kAttempts);
    if (r.status >= 200 && r.status < 300) return std::move(r.body);
    nlohmann::json error = nlohmann::json::parse(r.body, nullptr, false);
    std::string code = error_code(error);
    if (is_throttling(code) && attempt < kThrottledAttempts) {
      throttled_++;
      int64_t wait_ms = std::min<int64_t>(5000, 200LL << std::min(attempt - 1, 5));
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms / 2 + jitter() % (wait_ms / 2 + 1)));
      continue;
    }
    std::string message = error.is_object() ? error.value("message", error.value("Message", "")) : "";
    throw KinesisError(code, what + " failed: HTTP " + std::to_string(r.status) + (code.empty() ? "" : " " + code) +
                                 (message.empty() ? "" : " (" + message + ")") + hint_for(code, stream_));
  }
}

std::vector<KinesisShard> KinesisClient::list_shards() {
  std::vector<KinesisShard> shards;
  std::string token;
  do {
    nlohmann::json request = token.empty() ? nlohmann::json{{"StreamName", stream_}} : nlohmann::json{{"NextToken", token}};
    nlohmann::json answer = nlohmann::json::parse(call("ListShards", request.dump()));
    for (const auto& s : answer.value("Shards", nlohmann::json::array())) {
      KinesisShard shard;
      shard.id = s.at("ShardId").get<std::string>();
      shard.parent = s.value("ParentShardId", "");
      shard.adjacent_parent = s.value("AdjacentParentShardId", "");
      const auto& range = s.at("SequenceNumberRange");
      shard.first_sequence = range.value("StartingSequenceNumber", "");
      shard.last_sequence = range.value("EndingSequenceNumber", "");
      shards.push_back(std::move(shard));
    }
    token = answer.value("NextToken", "");
  } while (!token.empty());
  std::sort(shards.begin(), shards.end(), [](const KinesisShard& a, const KinesisShard& b) { return a.id < b.id; });
  return shards;
}

std::string KinesisClient::shard_iterator(const std::string& shard, IteratorStart start, const std::string& sequence,
                                          int64_t timestamp_ms) {
  static const char* const kTypes[] = {"TRIM_HORIZON", "LATEST", "AT_TIMESTAMP", "AT_SEQUENCE_NUMBER",
                                       "AFTER_SEQUENCE_NUMBER"};
  nlohmann::json request = {{"StreamName", stream_}, {"ShardId", shard},
                            {"ShardIteratorType", kTypes[static_cast<int>(start)]}};
  if (start == IteratorStart::AtSequence || start == IteratorStart::AfterSequence) request["StartingSequenceNumber"] = sequence;
  if (start == IteratorStart::AtTimestamp) request["Timestamp"] = static_cast<double>(timestamp_ms) / 1000.0;
  nlohmann::json answer = nlohmann::json::parse(call("GetShardIterator", request.dump()));
  return answer.value("ShardIterator", "");
}

KinesisRecords KinesisClient::get_records(const std::string& iterator, int limit) {
  nlohmann::json request = {{"ShardIterator", iterator}, {"Limit", std::clamp(limit, 1, 10000)}};
  nlohmann::json answer = nlohmann::json::parse(call("GetRecords", request.dump()));
  KinesisRecords out;
  for (const auto& r : answer.value("Records", nlohmann::json::array())) {
    KinesisRecord record;
    record.sequence = r.at("SequenceNumber").get<std::string>();
    if (r.contains("ApproximateArrivalTimestamp") && r["ApproximateArrivalTimestamp"].is_number())
      record.arrival_ms = std::llround(r["ApproximateArrivalTimestamp"].get<double>() * 1000.0);
    record.partition_key = r.value("PartitionKey", "");
    auto data = storage::base64_decode(r.value("Data", ""));
    if (!data)
      throw Error("Kinesis GetRecords on stream " + stream_ + " answered record " + record.sequence +
                  " with Data that is not base64");
    record.data = std::move(*data);
    out.records.push_back(std::move(record));
  }
  out.next_iterator = answer.contains("NextShardIterator") && answer["NextShardIterator"].is_string()
                          ? answer["NextShardIterator"].get<std::string>()
                          : "";
  out.millis_behind_latest = answer.value("MillisBehindLatest", int64_t{0});
  return out;
}

void KinesisClient::create_stream(int shards) {
  call("CreateStream", nlohmann::json{{"StreamName", stream_}, {"ShardCount", shards}}.dump());
  for (int attempt = 0; attempt < 600; attempt++) {
    nlohmann::json summary =
        nlohmann::json::parse(call("DescribeStreamSummary", nlohmann::json{{"StreamName", stream_}}.dump()));
    if (summary["StreamDescriptionSummary"].value("StreamStatus", "") == "ACTIVE") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error("Kinesis stream " + stream_ + " did not become active within a minute of its creation");
}

void KinesisClient::put_records(const std::vector<std::pair<std::string, std::string>>& records) {
  constexpr size_t kPerRequest = 500;
  for (size_t at = 0; at < records.size(); at += kPerRequest) {
    std::vector<size_t> pending;
    for (size_t i = at; i < std::min(records.size(), at + kPerRequest); i++) pending.push_back(i);
    for (int attempt = 1; !pending.empty(); attempt++) {
      if (attempt > kThrottledAttempts)
        throw Error("Kinesis kept refusing " + std::to_string(pending.size()) + " records put to " + stream_);
      nlohmann::json entries = nlohmann::json::array();
      for (size_t i : pending)
        entries.push_back({{"PartitionKey", records[i].first}, {"Data", storage::base64_encode(records[i].second)}});
      nlohmann::json answer = nlohmann::json::parse(
          call("PutRecords", nlohmann::json{{"StreamName", stream_}, {"Records", entries}}.dump()));
      std::vector<size_t> refused;
      const auto& results = answer.at("Records");
      for (size_t k = 0; k < pending.size() && k < results.size(); k++)
        if (results[k].contains("ErrorCode")) refused.push_back(pending[k]);
      pending = std::move(refused);
    }
  }
}

}  // namespace lakestream
