#!/usr/bin/env bash
# Fuzz the generated parsers for a bounded time (default 60 s): bash fuzz/run.sh [SECONDS]
# Needs the fuzz extra: .venv/bin/pip install -e ".[fuzz]". The corpus grows in fuzz/corpus/
# (seeded from fuzz/seeds/); a crash is written to fuzz/artifacts/ and the run exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
python="${PYTHON:-.venv/bin/python}"
mkdir -p fuzz/corpus fuzz/artifacts
exec "$python" fuzz/fuzz_parse.py -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
  -artifact_prefix=fuzz/artifacts/ fuzz/corpus fuzz/seeds
