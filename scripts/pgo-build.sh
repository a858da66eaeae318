#!/usr/bin/env bash
# scripts/pgo-build.sh [--bench]
#
# pbc's release build with profile-guided optimisation: the build to install and to measure
# (README, Install; docs/benchmarks.md). The compiler lays out and inlines the code by how often
# each branch ran on real input instead of by guesses: on the conformance corpus the parse in
# memory runs 16% faster than the plain release build's, `pbc parse`, `check` and `lookup` as
# whole processes 4-8% (docs/benchmarks.md, 2026-12-07).
#
#  1. An instrumented release build of pbc (target/pgo-generate), which counts every branch.
#  2. That pbc run on the training set: the manifests of the Debian packages listed in
#     scripts/pgo-packages.txt (parse, PN, check, fmt --check), which the conformance corpus the
#     benchmarks measure leaves out, and the bundled corpus and example trees (check, compile,
#     lookup of every key for every node, diff), several rounds. The packages are downloaded and
#     unpacked into target/pgo-train, never installed: the system's modules (which the Hiera and
#     YAML suites read) are the same after as before.
#  3. The counts merged by llvm-profdata of rustc's own LLVM (rustup's llvm-tools component,
#     added when missing: another LLVM's cannot read them).
#  4. The release build again with them: target/pgo/release/pbc. With --bench, also the parse
#     benchmark's binary, trained on the same manifests (target/pgo-bench), whose path is
#     printed last: scripts/parse-ratio.sh runs it when PBC_PARSE_BENCH names it.
#
# About fifteen minutes on two cores (two whole release builds). Exits non-zero when a step
# fails; a training command that reports findings (exit 1) is expected and goes on.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=
case "${1:-}" in
  --bench) bench=1 ;;
  "") ;;
  *) echo "usage: bash scripts/pgo-build.sh [--bench]" >&2; exit 2 ;;
esac
generate=$here/target/pgo-generate
train=$here/target/pgo-train
optimised=$here/target/pgo
profiles=$generate/profiles
profile=$optimised/pbc.profdata

overlap=$(comm -12 <(grep -v '^#' "$here/scripts/pgo-packages.txt" | sort) \
  <(grep -v '^#' "$here/scripts/corpus-packages.txt" | sort))
if [ -n "$overlap" ]; then
  echo "pgo-build: scripts/pgo-packages.txt names packages of the measured corpus: $overlap" >&2
  exit 1
fi

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  echo "pgo-build: adding rustup's llvm-tools component (llvm-profdata)" >&2
  rustup component add llvm-tools >&2
fi

# The training manifests, unpacked from the packages' .deb files; again when the list changes.
if ! cmp -s "$here/scripts/pgo-packages.txt" "$train/.done"; then
  rm -rf "$train"
  mkdir -p "$train/debs" "$train/unpacked" "$train/manifests"
  # apt's lists may be missing (a fresh machine) or being replaced by another apt-get (CI's
  # suites install packages meanwhile): then update them and try again, for a few minutes.
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  for attempt in 1 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2046
    if (cd "$train/debs" && apt-get download -q $(grep -v '^#' "$here/scripts/pgo-packages.txt") >/dev/null 2>&1); then
      break
    fi
    if [ "$attempt" = 8 ]; then
      echo "pgo-build: apt-get download of scripts/pgo-packages.txt's packages failed" >&2
      exit 1
    fi
    $sudo_ apt-get update -qq || true
    sleep 20
  done
  for deb in "$train"/debs/*.deb; do
    dpkg-deb -x "$deb" "$train/unpacked"
  done
  modules=$train/unpacked/usr/share/puppet/modules.available
  (cd "$modules" && find . -name '*.pp' -type f) | while read -r f; do
    mkdir -p "$train/manifests/$(dirname "$f")"
    cp "$modules/$f" "$train/manifests/$f"
  done
  cp "$here/scripts/pgo-packages.txt" "$train/.done"
fi
echo "pgo-build: training set: $(find "$train/manifests" -name '*.pp' | wc -l) manifests" >&2

echo "pgo-build: the instrumented build" >&2
(cd "$here" && CARGO_TARGET_DIR=$generate RUSTFLAGS="-Cprofile-generate=$profiles" \
  cargo build --release --quiet --bin pbc)
# The build scripts ran instrumented too; only pbc's own runs count.
rm -rf "$profiles"

echo "pgo-build: training" >&2
pbc=$generate/release/pbc
manifests=$train/manifests
run() { # KIND COMMAND...: one training run, counted in KIND's own profile
  local kind=$1 status=0
  shift
  LLVM_PROFILE_FILE="$profiles/$kind-%m.profraw" "$pbc" "$@" >/dev/null 2>&1 || status=$?
  # A clean run exits 0, one with findings 1; anything else is a failure.
  if [ "$status" -gt 1 ]; then
    echo "pgo-build: the training command failed ($status): pbc $*" >&2
    exit 1
  fi
}
cd "$here"
for _ in 1 2 3 4 5; do
  run manifests parse "$manifests"
  run manifests parse --format pn "$manifests"
  run manifests check "$manifests"
  run format fmt --check "$manifests"
  run trees check corpus
  run trees check examples/site
  run trees compile examples/site
  for tree in corpus/lookup/trees/example examples/control-repo examples/data-in-modules; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      run trees lookup --all --nodes "$tree/facts" "$tree"
      run trees diff --all --nodes "$tree/facts" "$tree" "$tree"
    done
  done
done
# Each kind of work weighs the same in the profile, however long its runs: merged as they ran,
# the layout's counts were twice the parser's, and the compiler treats as hot only the code that
# holds most of a profile's counts.
mkdir -p "$optimised"
declare -A total
weighted=()
largest=0
for kind in manifests format trees; do
  "$profdata" merge -o "$profiles/$kind.profdata" "$profiles/$kind"-*.profraw
  total[$kind]=$("$profdata" show "$profiles/$kind.profdata" | sed -n 's/^Total count: //p')
  [ "${total[$kind]}" -le "$largest" ] || largest=${total[$kind]}
done
for kind in manifests format trees; do
  weighted+=("--weighted-input=$(((largest + total[$kind] / 2) / total[$kind])),$profiles/$kind.profdata")
done
echo "pgo-build: weights: ${weighted[*]}" >&2
"$profdata" merge -o "$profile.new" "${weighted[@]}"
mv "$profile.new" "$profile"

echo "pgo-build: the optimised build" >&2
(export CARGO_TARGET_DIR=$optimised RUSTFLAGS="-Cprofile-use=$profile"
  cargo build --release --quiet --bin pbc) &
built=$!
if [ -n "$bench" ]; then
  # The benchmark's binary is built with the dev-dependencies, which change how the libraries
  # it shares with pbc are built, and with it the hash in every symbol: its functions cannot
  # find pbc's counts under their names (with pbc's profile it ran 5% faster, not 16%). So it
  # is trained as pbc is, on the same manifests with a profile of its own, and built beside
  # pbc in a target directory of its own.
  bench_profiles=$generate/bench-profiles
  (export CARGO_TARGET_DIR=$generate RUSTFLAGS="-Cprofile-generate=$bench_profiles"
    cargo build --release --quiet --bench parse --message-format json) |
    sed -n 's/.*"executable":"\([^"]*\/deps\/parse-[^"]*\)".*/\1/p' > "$generate/bench-path"
  rm -rf "$bench_profiles"
  "$(tail -n 1 "$generate/bench-path")" "$manifests" >/dev/null
  "$profdata" merge -o "$optimised/bench.profdata" "$bench_profiles"
  (export CARGO_TARGET_DIR=$here/target/pgo-bench RUSTFLAGS="-Cprofile-use=$optimised/bench.profdata"
    cargo build --release --quiet --bench parse --message-format json) |
    sed -n 's/.*"executable":"\([^"]*\/deps\/parse-[^"]*\)".*/\1/p' > "$optimised/bench-path"
fi
wait "$built"
echo "$optimised/release/pbc"
[ -z "$bench" ] || tail -n 1 "$optimised/bench-path"
