#include "bench/wide_events.h"

#include <cstdio>

namespace lakestream::bench {
namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr int kUsers = 10'000;

// Appends `"name": ` and a value to an object's text being built.
class JsonObject {
 public:
  JsonObject& text(const char* name, const std::string& value) { return raw(name, "\"" + value + "\""); }
  JsonObject& text_or_null(const char* name, const std::string& value, bool present) {
    return present ? text(name, value) : raw(name, "null");
  }
  JsonObject& number(const char* name, int64_t value) { return raw(name, std::to_string(value)); }
  JsonObject& boolean(const char* name, bool value) { return raw(name, value ? "true" : "false"); }
  JsonObject& raw(const char* name, const std::string& json) {
    out_ += out_.size() > 1 ? ", \"" : "\"";
    out_ += name;
    out_ += "\": ";
    out_ += json;
    return *this;
  }
  std::string done() { return out_ + "}"; }

 private:
  std::string out_ = "{";
};

std::string format(const char* pattern, double a, double b = 0) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, a, b);
  return text;
}

std::string cents_text(int64_t cents) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%02lld", static_cast<long long>(cents / 100), static_cast<long long>(cents % 100));
  return text;
}

template <size_t N>
const char* pick(const char* const (&choices)[N], uint64_t h) {
  return choices[h % N];
}

KeyedEvent fresh_event(const WideFeed& feed, int64_t i) {
  uint64_t h = mix(static_cast<uint64_t>(i) * 2 + 1);
  uint64_t g = mix(h), k = mix(g), m = mix(k);
  int64_t time_ms = kFeedStartMs + i * feed.spacing_ms;
  if (unit(g) < feed.late_share) time_ms -= 30'000 + static_cast<int64_t>(g % 150'000);
  static constexpr TimeForm kForms[] = {TimeForm::PythonIsoformat, TimeForm::ZuluMillis, TimeForm::ZuluSeconds,
                                        TimeForm::PlusTwoHours, TimeForm::EpochMillis, TimeForm::EpochMillis};
  TimeForm form = kForms[(h >> 60) % 6];
  if (form == TimeForm::ZuluSeconds) time_ms -= time_ms % 1000;

  static const char* const kTypes[] = {"page_view", "page_view", "page_view", "page_view", "page_view", "page_view",
                                       "add_to_cart", "add_to_cart", "purchase", "search"};
  static const char* const kCountries[] = {"FR", "DE", "US", "GB", "ES", "IT", "NL", "BR", "JP", "IN", "CA", "PL"};
  static const char* const kCities[] = {"Paris", "Berlin", "Austin", "Leeds", "Madrid", "Milan", "Utrecht", "Recife"};
  static const char* const kDevices[] = {"desktop", "mobile", "mobile", "tablet"};
  static const char* const kOses[] = {"Windows", "macOS", "Android", "iOS", "Linux"};
  static const char* const kBrowsers[] = {"Chrome", "Firefox", "Safari", "Edge"};
  static const char* const kLocales[] = {"fr-FR", "de-DE", "en-US", "en-GB", "es-ES", "it-IT"};
  static const char* const kSources[] = {"google", "newsletter", "facebook", "partner"};
  static const char* const kTags[] = {"\"new-visitor\"", "\"returning\"", "\"promo-fall\"", "\"loyalty\"", "\"mobile-app\""};
  const char* event_type = pick(kTypes, k >> 8);
  int category = static_cast<int>((k >> 20) % 40), product = static_cast<int>((k >> 28) % 5000);
  bool utm = (m & 0xff) < 100, referrer = (m >> 8 & 0xff) < 180;

  // The cart: 0 to 4 items, each an object; its value is the decimal cart_value.
  int items = static_cast<int>((m >> 16) % 5);
  int64_t cart_cents = 0;
  std::string item_list = "[";
  for (int n = 0; n < items; n++) {
    uint64_t x = mix(m + static_cast<uint64_t>(n));
    int64_t price = 199 + static_cast<int64_t>(x % 19'800);
    int qty = 1 + static_cast<int>((x >> 20) % 3);
    cart_cents += price * qty;
    item_list += std::string(n ? ", " : "") + "{\"sku\": \"SKU-" + std::to_string(x % 900'000 + 100'000) +
                 "\", \"name\": \"Item " + std::to_string(x >> 44) + "\", \"qty\": " + std::to_string(qty) +
                 ", \"price\": " + cents_text(price) + ", \"category\": \"cat-" + std::to_string((x >> 8) % 40) + "\"}";
  }
  item_list += "]";
  std::string tags = "[";
  for (int n = 0; n < 1 + static_cast<int>((g >> 40) % 3); n++) tags += std::string(n ? ", " : "") + pick(kTags, g >> (n * 5));
  tags += "]";

  char user[16];
  std::snprintf(user, sizeof user, "U-%05d", static_cast<int>((h >> 24) % kUsers));
  std::string os_version = std::to_string(10 + (k >> 36) % 8) + "." + std::to_string((k >> 40) % 6);
  std::string browser_version = std::to_string(110 + (k >> 44) % 12) + ".0." + std::to_string(5000 + (k >> 48) % 999);
  std::string path = "/products/category-" + std::to_string(category) + "/item-" + std::to_string(product);
  std::string value =
      JsonObject()
          .text("event_id", uuid4(h, g))
          .text("event_type", event_type)
          .raw("event_time", json_time(time_ms, form))
          .text("received_at", iso_time(time_ms + 40 + static_cast<int64_t>(g % 900), TimeForm::ZuluMillis))
          .text("user_id", user)
          .text("session_id", uuid4(mix(static_cast<uint64_t>(i / 20)), h >> 3))
          .number("session_seq", i % 20)
          .boolean("anonymous", (h >> 4 & 7) == 0)
          .text("country", pick(kCountries, h >> 12))
          .text("region", std::string("region-") + std::to_string((h >> 16) % 30))
          .text("city", pick(kCities, h >> 18))
          .raw("latitude", format("%.4f", -60 + static_cast<double>((g >> 12) % 1'300'000) / 10'000))
          .raw("longitude", format("%.4f", -170 + static_cast<double>((g >> 33) % 3'400'000) / 10'000))
          .text("ip", std::to_string(10 + (m >> 24) % 200) + "." + std::to_string((m >> 32) % 256) + "." +
                          std::to_string((m >> 40) % 256) + "." + std::to_string((m >> 48) % 256))
          .text("user_agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" +
                                  browser_version + " Safari/537.36")
          .text("page_url", "https://shop.example.com" + path + "?ref=search&q=item+" + std::to_string(product) +
                                "&page=" + std::to_string(1 + (k >> 52) % 9))
          .text("page_title", "Item " + std::to_string(product) + " - Category " + std::to_string(category) +
                                  " | Example Shop, free delivery over 50")
          .text_or_null("referrer", "https://www.google.com/search?q=item+" + std::to_string(product), referrer)
          .text_or_null("utm_source", pick(kSources, m >> 56), utm)
          .text_or_null("utm_medium", "cpc", utm)
          .text_or_null("utm_campaign", "fall-sale-2026-week-" + std::to_string(40 + (m >> 60)), utm)
          .text("device_type", pick(kDevices, k >> 4))
          .text("os", pick(kOses, k >> 6))
          .text("os_version", os_version)
          .text("browser", pick(kBrowsers, k >> 10))
          .text("browser_version", browser_version)
          .number("screen_width", 1280 + static_cast<int64_t>((k >> 12) % 5) * 160)
          .number("screen_height", 720 + static_cast<int64_t>((k >> 14) % 5) * 90)
          .number("viewport_width", 1200 + static_cast<int64_t>((k >> 16) % 400))
          .number("viewport_height", 600 + static_cast<int64_t>((k >> 18) % 300))
          .text("locale", pick(kLocales, h >> 28))
          .text("currency", "EUR")
          .raw("cart_value", cents_text(cart_cents))
          .number("item_count", items)
          .raw("discount_pct", format("%.1f", static_cast<double>((m >> 4) % 40) / 2))
          .boolean("is_returning", (g >> 50 & 3) != 0)
          .text("ab_variant", (g >> 52 & 1) ? "checkout-b" : "checkout-a")
          .number("load_time_ms", 80 + static_cast<int64_t>((g >> 20) % 2900))
          .raw("device", "{\"model\": \"Model " + std::to_string((k >> 24) % 90) + "\", \"memory_gb\": " +
                             std::to_string(2 << ((k >> 30) % 4)) + ", \"touch\": " + ((k >> 4) % 4 ? "true" : "false") +
                             ", \"screen\": {\"density\": 2.5, \"dark_mode\": false}}")
          .raw("items", item_list)
          .raw("tags", tags)
          .raw("context", "{\"library\": {\"name\": \"analytics.js\", \"version\": \"4.1." + std::to_string(h % 9) +
                              "\"}, \"consent\": {\"ads\": " + (utm ? "true" : "false") +
                              ", \"analytics\": true}, \"page\": {\"path\": \"" + path +
                              "\", \"search\": \"?ref=search\"}, \"campaign\": null, \"experiments\": [\"exp-" +
                              std::to_string(g % 7) + "\", \"exp-" + std::to_string(k % 5) + "\"]}")
          .done();
  return {user, value};
}

}  // namespace

KeyedEvent wide_event(const WideFeed& feed, int64_t i) {
  // A duplicate repeats the event before it byte for byte (a producer retry).
  if (i > 0 && unit(mix(static_cast<uint64_t>(i) ^ 0x9e3779b97f4a7c15ULL)) < feed.duplicate_share)
    return fresh_event(feed, i - 1);
  return fresh_event(feed, i);
}

std::string wide_schema() {
  return "event_id = \"string\"\nevent_type = \"string\"\nevent_time = \"timestamp\"\nreceived_at = \"timestamp\"\n"
         "user_id = \"string\"\nsession_id = \"string\"\nsession_seq = \"bigint\"\nanonymous = \"boolean\"\n"
         "country = \"string\"\nregion = \"string\"\ncity = \"string\"\nlatitude = \"double\"\nlongitude = \"double\"\n"
         "ip = \"string\"\nuser_agent = \"string\"\npage_url = \"string\"\npage_title = \"string\"\n"
         "referrer = \"string\"\nutm_source = \"string\"\nutm_medium = \"string\"\nutm_campaign = \"string\"\n"
         "device_type = \"string\"\nos = \"string\"\nos_version = \"string\"\nbrowser = \"string\"\n"
         "browser_version = \"string\"\nscreen_width = \"int\"\nscreen_height = \"int\"\nviewport_width = \"int\"\n"
         "viewport_height = \"int\"\nlocale = \"string\"\ncurrency = \"string\"\ncart_value = \"decimal(12,2)\"\n"
         "item_count = \"int\"\ndiscount_pct = \"double\"\nis_returning = \"boolean\"\nab_variant = \"string\"\n"
         "load_time_ms = \"int\"\n";
}

}  // namespace lakestream::bench
