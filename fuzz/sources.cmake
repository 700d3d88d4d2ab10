# The sources each fuzz target exercises, listed by hand: the targets compile them again,
# instrumented, rather than link the gcc build's libraries. Included by fuzz/CMakeLists.txt (clang,
# libFuzzer) and by tests/CMakeLists.txt, which links each list with g++ and a plain main that
# replays the seed corpus: a file a listed source comes to need then fails `make build`, not only
# the clang build at the end of the suite. Set `lakestream_src` to the src/ folder first.
file(GLOB fuzz_util_sources "${lakestream_src}/util/*.cc")
file(GLOB fuzz_sql_sources "${lakestream_src}/sql/*.cc")
set(delta_log_fuzz_sources ${fuzz_util_sources} ${fuzz_sql_sources} ${lakestream_src}/table/delta_log_json.cc
    ${lakestream_src}/table/delta_types.cc ${lakestream_src}/table/path_encoding.cc
    ${lakestream_src}/table/table_features.cc ${lakestream_src}/table/column_mapping.cc)
set(record_decoder_fuzz_sources ${fuzz_util_sources} ${fuzz_sql_sources} ${lakestream_src}/decode/record_decoder.cc
    ${lakestream_src}/decode/fast_decoder.cc ${lakestream_src}/pipeline/field.cc
    ${lakestream_src}/pipeline/bronze_layout.cc)
