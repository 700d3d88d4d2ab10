#include "storage/base64.h"

#include <openssl/evp.h>

namespace lakestream::storage {

std::string base64_encode(const std::string& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(n);
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding's zero bytes as data.
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && pad < 2 && text[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace lakestream::storage
