#!/usr/bin/env bash
# scripts/conformance.sh [WORKDIR]
#
# Compares pbc with Puppet 7 on every real-world manifest from Debian's puppet-module-*
# packages, on deterministic mutants of each (scripts: examples/conformance.rs), and on pbc's own
# corpus/pn: the verdict (`puppet parser validate` against `pbc parse --validate`), the line of
# the first error, and the PN JSON (`puppet parser dump --format json` against
# `pbc parse --format pn`). Installs puppet-agent and the module packages when missing (Debian).
# Prints a table and every difference; exits 1 on a difference not listed, with its reason, in
# scripts/conformance-divergences.tsv, or when mutant agreement falls below the issue's bars.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
work=${1:-$here/target/conformance}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# shellcheck source=scripts/puppet-install.sh
. "$here/scripts/puppet-install.sh"

# The corpus: every .pp of the packages' modules and examples, under stable names.
corpus=$work/root/corpus
if [ ! -f "$work/root/.corpus-done" ]; then
  rm -rf "$work/root"; mkdir -p "$corpus"
  for pkg in $(grep -v '^#' "$here/scripts/corpus-packages.txt"); do
    { dpkg -L "$pkg" | grep -E '^/usr/share/puppet/modules.available/[^/]+/.*\.pp$' || true; } | while read -r f; do
      rel=modules/${f#/usr/share/puppet/modules.available/}
      [ -L "$f" ] || { mkdir -p "$corpus/$(dirname "$rel")"; cp "$f" "$corpus/$rel"; }
    done
    if [ -d "/usr/share/doc/$pkg" ]; then
      (cd "/usr/share/doc/$pkg" && find . -type f \( -name '*.pp' -o -name '*.pp.gz' \)) | while read -r f; do
        f=${f#./}; dst=$corpus/doc/$pkg/${f%.gz}; mkdir -p "$(dirname "$dst")"
        case "$f" in *.gz) gzip -dc "/usr/share/doc/$pkg/$f" > "$dst" ;; *) cp "/usr/share/doc/$pkg/$f" "$dst" ;; esac
      done
    fi
  done
  touch "$work/root/.corpus-done"
fi
rm -rf "$work/root/pn" "$work/root/mutants"
cp -r "$here/corpus/pn" "$work/root/pn"

cd "$here"
cargo build --profile "$profile" --quiet --example conformance
tool=$here/target/$profile/examples/conformance
"$tool" mutate "$corpus" "$work/root/mutants"

(cd "$work/root" && find corpus pn mutants -name '*.pp' | LC_ALL=C sort) > "$work/list"
rm -rf "$work/pn"
ruby "$here/scripts/puppet-oracle.rb" "$work/root" "$work/list" "$work/oracle.tsv" "$work/pn"
# The table names mutants by their folder; corpus files by theirs.
status=0
"$tool" compare "$work/root" "$work/oracle.tsv" "$work/pn" "$here/scripts/conformance-divergences.tsv" || status=$?
# `pbc check` must report nothing in a manifest Puppet accepts.
"$tool" check "$work/root" "$work/oracle.tsv" || status=$?
exit $status
