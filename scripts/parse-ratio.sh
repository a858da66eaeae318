#!/usr/bin/env bash
# pbc's parse speed as a multiple of Puppet 7's own parser's, both measured in turn on this
# machine: each pair runs the parse benchmark's binary (`cargo bench --bench parse`) and then
# scripts/puppet-parse-speed.rb on the same directory, and prints the two speeds (pbc's best
# run, Puppet's best of three rounds) and their ratio. Only speeds measured in turn compare:
# either one moves by several percent from one minute to the next on a shared machine.
# Usage: bash scripts/parse-ratio.sh [DIR] [PAIRS]
#   DIR: the Debian corpus scripts/conformance.sh builds (the default), or any directory of .pp files
#   PAIRS: 3 unless given
#   PBC_PARSE_BENCH: the benchmark's binary to run instead of building the plain release one
#     (`bash scripts/pgo-build.sh --bench` prints the profile-guided build's)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/target/conformance/root/corpus}
pairs=${2:-3}
if [ ! -d "$dir" ]; then
  echo "parse-ratio: no directory $dir (bash scripts/conformance.sh builds the default corpus)" >&2
  exit 2
fi
source "$here/scripts/puppet-install.sh"
bench=${PBC_PARSE_BENCH:-}
if [ -z "$bench" ]; then
  bench=$(cd "$here" && cargo bench --bench parse --no-run 2>&1 |
    sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -n 1)
fi
if [ -z "$bench" ]; then
  echo "parse-ratio: cargo did not name the parse benchmark's binary" >&2
  exit 2
fi
case "$bench" in /*) ;; *) bench=$here/$bench ;; esac
echo "pbc MB/s	Puppet MB/s	ratio"
for _ in $(seq "$pairs"); do
  # awk reads all of each output, so that neither program writes to a closed pipe.
  pbc=$("$bench" "$dir" | awk -F', ' '/^parse:/ { sub(/ MB\/s.*/, "", $4); print $4 }')
  puppet=$(ruby "$here/scripts/puppet-parse-speed.rb" "$dir" 3 |
    awk -F', ' '/^puppet parse:/ { sub(/ MB\/s.*/, "", $4); print $4 }')
  if [ -z "$pbc" ] || [ -z "$puppet" ]; then
    echo "parse-ratio: a speed was missing from the output (pbc: '$pbc', Puppet: '$puppet')" >&2
    exit 1
  fi
  awk -v a="$pbc" -v b="$puppet" 'BEGIN { printf "%s\t%s\t%.1f\n", a, b, a / b }'
done
