#!/usr/bin/env bash
# scripts/puppet-bridge.sh [WORKDIR]
#
# Puppet 7's own lookup through pbc's Hiera 5 backend (src/puppet/pbc, `pbc::lookup_key`) gives
# exactly what `pbc lookup` gives, for every key of every factset of the bundled examples
# (scripts/puppet-bridge.rb), in puppet-agent's Ruby and in puppetserver's JRuby. Installs
# Debian's puppet-agent and puppetserver when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
work=${1:-$here/target/puppet-bridge}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"
# Debian's puppetserver: its JRuby (`puppetserver ruby`) is where a Puppet server runs the module.
if ! command -v puppetserver >/dev/null; then
  echo "installing puppetserver" >&2
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  DEBIAN_FRONTEND=noninteractive TMPDIR=/var/tmp $sudo_ apt-get install -y -qq --no-install-recommends puppetserver >/dev/null
fi
(cd "$here" && cargo build --profile "$profile" --quiet)
ruby "$here/scripts/puppet-bridge.rb" "$here/target/$profile/pbc" "$work" \
  "$here/examples/quickstart" "$here/examples/data-in-modules" "$here/examples/control-repo" \
  "$here/corpus/lookup/trees/example" "$here/corpus/lookup/trees/hiera5-globs" \
  "$here/corpus/lookup/trees/bridge-types"
