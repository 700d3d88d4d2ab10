#include "storage/credentials.h"

#include <cstdlib>
#include <fstream>

#include "util/error.h"

namespace lakestream::storage {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string home_file(const char* var, const std::string& default_name) {
  std::string set = env(var);
  if (!set.empty()) return set;
  std::string home = env("HOME");
  return home.empty() ? "" : home + "/.aws/" + default_name;
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// The key=value pairs of section [name] of an INI file such as ~/.aws/credentials.
std::map<std::string, std::string> ini_section(const std::string& path, const std::string& name) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      inside = trim(line.substr(1, line.find(']') - 1)) == name;
      continue;
    }
    size_t eq = line.find('=');
    if (inside && eq != std::string::npos) out[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  return out;
}

// "Key=Value;Key=Value" of an Azure connection string.
std::map<std::string, std::string> connection_string_parts(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t eq = part.find('=');
    if (eq != std::string::npos) out[trim(part.substr(0, eq))] = trim(part.substr(eq + 1));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

int64_t int_setting(const StoreSettings& settings, const char* key, int64_t fallback) {
  auto it = settings.find(key);
  return it == settings.end() ? fallback : std::stoll(it->second);
}

std::string setting_or_env(const StoreSettings& settings, const std::string& key, std::initializer_list<const char*> vars) {
  auto it = settings.find(key);
  if (it != settings.end() && !it->second.empty()) return it->second;
  for (const char* var : vars)
    if (!env(var).empty()) return env(var);
  return "";
}

AwsSettings resolve_aws(const StoreSettings& settings, const std::string& url, const char* service) {
  AwsSettings out;
  out.access_key_id = setting_or_env(settings, "access_key_id", {"AWS_ACCESS_KEY_ID"});
  out.secret_access_key = setting_or_env(settings, "secret_access_key", {"AWS_SECRET_ACCESS_KEY"});
  out.session_token = setting_or_env(settings, "session_token", {"AWS_SESSION_TOKEN"});
  out.region = setting_or_env(settings, "region", {"AWS_REGION", "AWS_DEFAULT_REGION"});
  out.endpoint = setting_or_env(settings, "endpoint", {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"});
  std::string profile = setting_or_env(settings, "profile", {"AWS_PROFILE"});
  if (profile.empty()) profile = "default";
  if (out.access_key_id.empty()) {
    auto creds = ini_section(home_file("AWS_SHARED_CREDENTIALS_FILE", "credentials"), profile);
    out.access_key_id = creds["aws_access_key_id"];
    out.secret_access_key = creds["aws_secret_access_key"];
    out.session_token = creds["aws_session_token"];
  }
  if (out.region.empty()) {
    std::string config = home_file("AWS_CONFIG_FILE", "config");
    out.region = ini_section(config, profile == "default" ? "default" : "profile " + profile)["region"];
  }
  if (out.region.empty()) out.region = "us-east-1";
  while (!out.endpoint.empty() && out.endpoint.back() == '/') out.endpoint.pop_back();
  std::string path_style = setting_or_env(settings, "path_style", {"AWS_S3_FORCE_PATH_STYLE"});
  // A custom endpoint (MinIO, R2, an emulator) is usually addressed by path; AWS by host name.
  out.path_style = path_style.empty() ? !out.endpoint.empty() : (path_style == "true" || path_style == "1");
  if (out.access_key_id.empty() || out.secret_access_key.empty())
    throw Error(std::string("no ") + service + " credentials for " + url + ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in " +
                "~/.aws/credentials (AWS_PROFILE picks it), or access_key_id/secret_access_key in the pipeline's storage settings");
  return out;
}

AzureSettings resolve_azure(const StoreSettings& settings, const std::string& account, const std::string& url) {
  AzureSettings out;
  auto conn = connection_string_parts(setting_or_env(settings, "connection_string", {"AZURE_STORAGE_CONNECTION_STRING"}));
  out.account = account;
  if (out.account.empty()) out.account = setting_or_env(settings, "account", {"AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT"});
  if (out.account.empty()) out.account = conn["AccountName"];
  out.account_key = setting_or_env(settings, "account_key", {"AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY"});
  if (out.account_key.empty() && (conn["AccountName"].empty() || conn["AccountName"] == out.account))
    out.account_key = conn["AccountKey"];
  out.sas_token = setting_or_env(settings, "sas_token", {"AZURE_STORAGE_SAS_TOKEN"});
  if (out.sas_token.empty()) out.sas_token = conn["SharedAccessSignature"];
  if (!out.sas_token.empty() && out.sas_token[0] == '?') out.sas_token.erase(0, 1);
  out.blob_endpoint = setting_or_env(settings, "endpoint", {"AZURE_STORAGE_ENDPOINT"});
  if (out.blob_endpoint.empty()) out.blob_endpoint = conn["BlobEndpoint"];
  if (out.account.empty())
    throw Error("no Azure storage account for " + url + ": name it in the URL (abfss://container@ACCOUNT.dfs.core.windows.net/...) " +
                "or set AZURE_STORAGE_ACCOUNT_NAME");
  if (out.blob_endpoint.empty()) out.blob_endpoint = "https://" + out.account + ".blob.core.windows.net";
  while (!out.blob_endpoint.empty() && out.blob_endpoint.back() == '/') out.blob_endpoint.pop_back();
  if (out.account_key.empty() && out.sas_token.empty())
    throw Error("no Azure credentials for " + url + ": set AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN " +
                "(or AZURE_STORAGE_CONNECTION_STRING), or account_key/sas_token in the pipeline's storage settings");
  return out;
}

}  // namespace lakestream::storage
