#!/usr/bin/env bash
# scripts/bridge-cost.sh [ROUNDS]
#
# What pbc's Hiera backend adds to a catalog compile on the 110,000-binding model of `cargo
# bench --bench model` (built by that bench when missing): Puppet 7's lookups with no pbc level,
# with pbc run once per compile, and through `pbc serve`, side by side (scripts/bridge-cost.rb).
# Installs Debian's puppet-agent when missing. Not part of CI (the model takes minutes to build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tree=$here/target/tmp/model-10000

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"
(cd "$here" && cargo build --release --quiet)
if [ ! -f "$tree/model.pbcm" ]; then
  (cd "$here" && cargo bench --bench model)
fi
facts=$(find "$tree/factsets" -name 'node1.*.json' | head -n 1)
ruby "$here/scripts/bridge-cost.rb" "$here/target/release/pbc" "$tree/model.pbcm" "$facts" \
  "$here/target/bridge-cost" "${1:-3}"
