#!/usr/bin/env bash
# scripts/yaml-differential.sh [WORKDIR]
#
# pbc's reading of YAML data against Psych's as Puppet 7 reads it (Puppet::Util::Yaml, then
# yaml_data's rules), through the pbc binary: every YAML file under corpus/, every YAML file of
# the Debian puppet-module-* packages, the public control repositories' data in
# ../shared/data/control-repos/ (read in place, never copied into the project), and generated
# documents of the quirks YAML 1.1 and libyaml are known for (scripts/yaml-differential.rb).
# Same value, or both refuse; exits 1 on a difference not listed, with its reason, in
# scripts/yaml-divergences.tsv. Installs puppet-agent and the module packages when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
work=${1:-$here/target/yaml-differential}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"

(cd "$here" && cargo build --profile "$profile" --quiet)
files=()
while IFS= read -r f; do files+=("$f"); done < <(
  {
    find "$here/corpus" -name '*.yaml'
    find /usr/share/puppet/modules.available/ -name '*.yaml' 2>/dev/null
    [ -d "$here/../shared/data/control-repos" ] && find "$here/../shared/data/control-repos" -name '*.yaml'
  } | sort
)
ruby "$here/scripts/yaml-differential.rb" "$here/target/$profile/pbc" "$work" "${files[@]}"
