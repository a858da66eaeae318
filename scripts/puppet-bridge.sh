#!/usr/bin/env bash
# scripts/puppet-bridge.sh [WORKDIR]
#
# Puppet 7's own lookup through pbc's Hiera 5 backend (src/puppet/pbc, `pbc::lookup_key`) gives
# exactly what `pbc lookup` gives, for every key of every factset of the bundled examples
# (scripts/puppet-bridge.rb). Installs Debian's puppet-agent when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$here/target/puppet-bridge}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"
(cd "$here" && cargo build --release --quiet)
ruby "$here/scripts/puppet-bridge.rb" "$here/target/release/pbc" "$work" \
  "$here/examples/quickstart" "$here/examples/data-in-modules" "$here/examples/control-repo" \
  "$here/corpus/lookup/trees/example" "$here/corpus/lookup/trees/hiera5-globs" \
  "$here/corpus/lookup/trees/bridge-types"
