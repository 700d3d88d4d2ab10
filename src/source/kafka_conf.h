// The librdkafka configuration built from a pipeline's [kafka] settings, shared by the reader
// and the producer, so that both connect the same way (bootstrap, SASL/SSL pass-through).
#pragma once

#include <string>

#include "pipeline/pipeline.h"

struct rd_kafka_conf_s;

namespace lakestream {

// Builds a librdkafka configuration: bootstrap.servers from resolve_bootstrap(kafka.bootstrap),
// then each property as given. Error naming the property when librdkafka refuses one, never
// printing its value (nor librdkafka's message, which may quote it) when it is a secret. The
// caller owns the result (rd_kafka_new takes it, or rd_kafka_conf_destroy).
rd_kafka_conf_s* make_kafka_conf(const KafkaSettings& kafka);

// Sets one property on `conf`, with the same errors as make_kafka_conf.
void set_kafka_property(rd_kafka_conf_s* conf, const std::string& name, const std::string& value);

// The value of property `name` in `conf` ("" when unset), e.g. the resolved bootstrap.servers.
std::string kafka_property(rd_kafka_conf_s* conf, const std::string& name);

// True when the pipeline's properties set `name` (so a default of ours must not override it).
bool has_kafka_property(const KafkaSettings& kafka, const std::string& name);

}  // namespace lakestream
