#!/usr/bin/env bash
# Fuzz for a bounded time (default 60 s): bash fuzz/run.sh [SECONDS] [TARGET]
# TARGET: fuzz/fuzz_parse.py (the generated parsers, the default) or fuzz/fuzz_catalog.py (the
# build's reading of catalogs from the wild).
# Needs the fuzz extra: .venv/bin/pip install -e ".[fuzz]". The parsers' corpus grows in
# fuzz/corpus/ (seeded from fuzz/seeds/), the catalogs' in fuzz/corpus/catalog/; a crash is
# written to fuzz/artifacts/ and the run exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
target="${2:-fuzz/fuzz_parse.py}"
python="${PYTHON:-.venv/bin/python}"
if [ "$target" = fuzz/fuzz_catalog.py ]; then
  corpora=(fuzz/corpus/catalog)
else
  corpora=(fuzz/corpus fuzz/seeds)
fi
mkdir -p "${corpora[0]}" fuzz/artifacts
exec "$python" "$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
  -artifact_prefix=fuzz/artifacts/ "${corpora[@]}"
