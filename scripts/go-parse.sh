#!/usr/bin/env bash
# Builds the peer `pbc parse DIR` is measured against (issue 59): lyraproj/puppet-parser, the Go
# implementation of Puppet's parser, driven over a directory by scripts/go-parse/main.go, into
# target/go-parse/go-parse. Installs Debian's golang-go when missing. The parser and its one
# dependency (lyraproj/issue) come from the git repositories GO_PUPPET_PARSER and GO_LYRA_ISSUE
# name (a clone or a bare git directory), else they are cloned from GitHub; each is built at the
# commit puppet-parser's go.mod names, and the commits used are printed. Nothing else is
# downloaded: the build runs with GOPROXY=off.
#
# Usage: bash scripts/go-parse.sh            (builds; then target/go-parse/go-parse DIR...)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/target/go-parse
parser_rev=21687f9
issue_rev=e082d6813d15

if ! command -v go >/dev/null; then
  echo "go-parse: installing Debian's golang-go" >&2
  ${SUDO:-$(command -v sudo >/dev/null && [ "$(id -u)" != 0 ] && echo sudo)} \
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -q golang-go >/dev/null
fi

rm -rf "$out/src"
mkdir -p "$out/src"
fetch() { # NAME REPOSITORY-OR-EMPTY GITHUB-PATH REV
  local dir=$out/src/$1
  if [ -n "$2" ]; then
    git --git-dir="$( [ -d "$2/.git" ] && echo "$2/.git" || echo "$2")" archive "$4" | tar -x -C "$(mkdir -p "$dir" && echo "$dir")"
  else
    git clone -q "https://github.com/$3" "$dir.clone"
    git -C "$dir.clone" archive "$4" | tar -x -C "$(mkdir -p "$dir" && echo "$dir")"
    rm -rf "$dir.clone"
  fi
  echo "go-parse: $3 at $4" >&2
}
fetch puppet-parser "${GO_PUPPET_PARSER:-}" lyraproj/puppet-parser "$parser_rev"
fetch issue "${GO_LYRA_ISSUE:-}" lyraproj/issue "$issue_rev"
# Only the packages are built: the modules' test-only requirements are left out, so that nothing
# is fetched.
printf 'module github.com/lyraproj/issue\n\ngo 1.12\n' >"$out/src/issue/go.mod"
printf 'module github.com/lyraproj/puppet-parser\n\ngo 1.12\n\nrequire github.com/lyraproj/issue v0.0.0\n\nreplace github.com/lyraproj/issue => ../issue\n' \
  >"$out/src/puppet-parser/go.mod"
rm -f "$out/src/puppet-parser/go.sum" "$out/src/issue/go.sum"
mkdir -p "$out/src/driver"
cp "$here/scripts/go-parse/main.go" "$out/src/driver/"
cat >"$out/src/driver/go.mod" <<MOD
module pbc/go-parse

go 1.19

require (
	github.com/lyraproj/issue v0.0.0
	github.com/lyraproj/puppet-parser v0.0.0
)

replace github.com/lyraproj/issue => ../issue

replace github.com/lyraproj/puppet-parser => ../puppet-parser
MOD
(cd "$out/src/driver" && GOPROXY=off GOFLAGS=-mod=mod go build -o "$out/go-parse" .)
echo "go-parse: built $out/go-parse" >&2
