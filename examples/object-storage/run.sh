#!/bin/sh
# The shop demo with its tables on an object store: starts an S3 emulator (s3rver, which
# scripts/setup installs into .deps/npm) or Azurite (with `azure` as argument 2), points the
# standard variables at it (scripts/with-store-emulator), and runs `lakestream demo --lake
# s3://lake/demo` (or az://...). For a real bucket, skip the emulator: set AWS_* or
# AZURE_STORAGE_* and run the demo line.
# Usage: run.sh [WORK_FOLDER] [s3|azure]   (or STORE=azure run.sh)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
store="${2:-${STORE:-s3}}"
mkdir -p "$work" && cd "$work"
exec "$here/../../scripts/with-store-emulator" "$store" sh -c 'lakestream demo --dir "$1/demo" --lake "$STORE_URL/demo"' sh "$work"
