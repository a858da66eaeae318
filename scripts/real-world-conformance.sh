#!/usr/bin/env bash
# scripts/real-world-conformance.sh [WORKDIR]
#
# `pbc lookup` against Puppet 7's own lookup on data nobody on the team wrote: the public
# control repositories' Hiera 5 data in ../shared/data/control-repos/ (each with its source,
# commit and licence; read from there, copied only into WORKDIR), with real Facter 4 output
# from Debian's facterdb package, every key of every data file, for every factset
# (scripts/real-world-prepare.rb lays it out and says what is left out; the comparison is
# scripts/hiera-compare.rb, Puppet's answers scripts/hiera-oracle.rb). Exits 1 on a difference
# not listed, with its reason, in scripts/real-world-divergences.tsv. Installs puppet-agent,
# the module packages, facterdb and hiera-eyaml when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
work=${1:-$here/target/real-world}
shared=$here/../shared/data/control-repos
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"
if ! dpkg-query -W facterdb >/dev/null 2>&1 || ! dpkg-query -W hiera-eyaml >/dev/null 2>&1; then
  echo "installing facterdb and hiera-eyaml" >&2
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends facterdb hiera-eyaml >/dev/null
fi
if [ ! -d "$shared" ]; then
  echo "real-world conformance: $shared is missing" >&2
  exit 1
fi

(cd "$here" && cargo build --profile "$profile" --quiet)
ruby "$here/scripts/real-world-prepare.rb" "$shared" "$work"
ruby "$here/scripts/hiera-compare.rb" --each-key "$here/target/$profile/pbc" "$work" "$here/scripts/real-world-divergences.tsv"
ruby "$here/scripts/real-world-original.rb" "$here/target/$profile/pbc" "$work"
