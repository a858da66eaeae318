#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# scripts/fuzz.sh build
#
# Runs pbc's cargo-fuzz targets (fuzz/fuzz_targets/: parse, check, compile, lookup, eval, data,
# model, cache, lsp, fmt),
# each for SECONDS (default 30), seeded from corpus/. Each input gets at most 10 s and 2 GB
# (libFuzzer's -timeout and -rss_limit_mb): a hang or a memory blow-up fails like a crash.
# Needs the nightly toolchain (libFuzzer's instrumentation); installs cargo-fuzz when missing.
# Exits 1 when a target finds a failing input (saved in fuzz/artifacts/TARGET/): make it a
# corpus file and fix it. A long run: scripts/fuzz.sh 3600 (an hour per target).
#
# Targets run as many at a time as the machine has cores (FUZZ_JOBS overrides), each on one core
# as libFuzzer runs, for the same time each: on two cores the ten targets take five rounds,
# not ten. `scripts/fuzz.sh build` only installs cargo-fuzz and builds the instrumented
# targets, so that .ci/run can build them while other suites wait on Ruby.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
if [ "${1:-}" = build ]; then
  build_only=1
  shift
else
  build_only=
fi
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse check compile lookup eval data model cache lsp fmt)

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain here; the fuzz targets need one (rustup toolchain install nightly)" >&2
  exit 0
fi
if ! command -v cargo-fuzz >/dev/null; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked --quiet
fi

if [ -n "$build_only" ]; then
  cd "$here/fuzz"
  cargo +nightly fuzz build --release --debug-assertions
  exit 0
fi

# Seeds: every manifest of the corpus for the targets that read Puppet, every facts, ENC and
# data file for the data readers. Copied by content hash, so reruns add nothing twice.
seeds=$here/target/fuzz-seeds
mkdir -p "$seeds/puppet" "$seeds/data"
find "$here/corpus" -name '*.pp' -size -64k -print0 | while IFS= read -r -d '' f; do
  cp "$f" "$seeds/puppet/$(sha1sum "$f" | cut -c1-16)"
done
find "$here/corpus" \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' -o -name '*.eyaml' \) -size -64k -print0 |
  while IFS= read -r -d '' f; do cp "$f" "$seeds/data/$(sha1sum "$f" | cut -c1-16)"; done
# `convert_to` for the data target: a type, then a JSON array of values.
for t in 'Integer' 'Float' 'Numeric' 'Boolean' 'String' 'Array' 'Hash' 'Sensitive[String]' \
  'Optional[Integer[0, 10]]' 'Array[String, 2]' 'Hash[String, Integer]'; do
  printf '%s\n["010", "+ 42", "0x1F", "1e3", "Yes", 2.5, [["a", 1]], {"k": [1, "x"]}, null, 16, true]\n' "$t" \
    >"$seeds/data/convert-$(printf '%s' "$t" | sha1sum | cut -c1-12)"
done
# Editor sessions for the language server (corpus/lsp/: one message per line).
mkdir -p "$seeds/lsp"
cp "$here"/corpus/lsp/*.jsonl "$seeds/lsp/"
# Models: the corpus trees' compiled models, JSON and cache.
mkdir -p "$seeds/model"
cp "$here"/corpus/lookup/trees/model/models/*.json "$seeds/model/" 2>/dev/null || true
(cd "$here" && cargo build --profile "$profile" --quiet)
for d in "$here"/corpus/lookup/trees/*/ "$here"/corpus/compile/trees/*/; do
  n=$(basename "$d")
  "$here/target/$profile/pbc" compile --compact -o "$seeds/model/$n.json" "$d" 2>/dev/null || true
  "$here/target/$profile/pbc" compile --cache -o "$seeds/model/$n.pbcm" "$d" 2>/dev/null || true
done
# The cache target's inputs are a cache's body, after its checksum (28 bytes: magic line,
# version, checksum), which the target seals again.
mkdir -p "$seeds/cache"
for f in "$seeds"/model/*.pbcm; do
  [ -f "$f" ] && tail -c +29 "$f" >"$seeds/cache/$(basename "$f" .pbcm)"
done

cd "$here/fuzz"
cargo +nightly fuzz build --release --debug-assertions
jobs=${FUZZ_JOBS:-$(nproc)}
logs=$(mktemp -d)
# One target's run, its output in $logs/TARGET.
fuzz_one() {
  local t=$1 kind=puppet
  [ "$t" = data ] && kind=data
  [ "$t" = model ] && kind=model
  [ "$t" = cache ] && kind=cache
  [ "$t" = lsp ] && kind=lsp
  mkdir -p "corpus/$t"
  rm -rf "artifacts/$t"
  echo "fuzz: $t for ${seconds}s" >"$logs/$t"
  # -detect_leaks=0: the checks spawn worker threads, whose per-thread allocations
  # LeakSanitizer may count as a 32-byte leak that no rerun of the input reproduces; memory
  # that really grows is caught by -rss_limit_mb. ASAN_OPTIONS=detect_leaks=0 stops the same
  # count at the process's exit, which libFuzzer's flag leaves on: a seven-minute run of `lsp`
  # ended with "90 bytes leaked in 3 allocations" and saved the empty input, which six reruns
  # ran clean.
  # -timeout and -report_slow_units at 30 s: an input that spends a lookup's whole step budget
  # (corpus/lookup/trees/errors: `endless`, looked up and explained) takes 4 s alone in the
  # instrumented build on a quick machine, 13.5 s on a slow one, and libFuzzer's default of
  # 10 s saved it as a slow unit. The budget bounds it; a real hang still stops at 30 s.
  ASAN_OPTIONS=detect_leaks=0 cargo +nightly fuzz run --release --debug-assertions "$t" "corpus/$t" "$seeds/$kind" -- \
    -max_total_time="$seconds" -timeout=30 -report_slow_units=30 -rss_limit_mb=2048 \
    -max_len=65536 -detect_leaks=0 -print_final_stats=1 2>&1 |
    grep -E '^(stat::number_of_executed_units|==[0-9]+==|SUMMARY|.*(panicked|ERROR))' >>"$logs/$t" || true
}
failed=
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  round=("${targets[@]:i:jobs}")
  for t in "${round[@]}"; do
    fuzz_one "$t" &
  done
  wait
  for t in "${round[@]}"; do
    cat "$logs/$t" >&2
    # A failing input is what matters; libFuzzer's exit status is read from the artifacts.
    if compgen -G "artifacts/$t/*" >/dev/null; then
      echo "fuzz: $t found failing inputs:" >&2
      ls "artifacts/$t" >&2
      failed=1
    fi
  done
done
rm -rf "$logs"
[ -z "$failed" ] || exit 1
echo "fuzz: no failing input in ${targets[*]}"
