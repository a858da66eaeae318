#!/usr/bin/env bash
# scripts/fmt-corpus.sh [WORKDIR]
#
# `pbc fmt` on real manifests nobody here wrote: every .pp of the Debian corpus that
# scripts/conformance.sh builds (run it first), with pbc's own corpus and examples. Shows, on a
# copy laid out in place:
#   - no layout refused (FORMAT_CHANGED_MEANING), and Puppet 7's own PN of every file it
#     accepts the same before and after (`puppet parser dump`, scripts/puppet-oracle.rb);
#   - laying out again changes nothing (`pbc fmt --check` lists no file);
#   - every comment kept, in order (examples/conformance.rs fmt-comments);
#   - puppet-lint's layout checks (arrow_alignment, arrow_on_right_operand_line, hard_tabs,
#     trailing_whitespace, 2sp_soft_tabs, 140chars) before and after, on the files that parse; all but 140chars must
#     find nothing after, and 140chars no more than before (what is left has no bracket to
#     break: a long string, a comment);
#   - speed: `pbc fmt` against `puppet-lint --fix` on the same files, same run, in MB/s.
# Installs Debian's puppet-lint when missing. Exits 1 when any of the above fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
profile=${PBC_PROFILE:-release}
work=${1:-$here/target/fmt-corpus}
corpus=$here/target/conformance/root/corpus
[ -d "$corpus" ] || { echo "fmt-corpus: no Debian corpus at $corpus: run scripts/conformance.sh first" >&2; exit 2; }
if ! command -v puppet-lint >/dev/null; then
  echo "installing puppet-lint" >&2
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends puppet-lint >/dev/null
fi
cd "$here"
cargo build --profile "$profile" --quiet --bin pbc --example conformance
pbc=$here/target/$profile/pbc
tool=$here/target/$profile/examples/conformance

rm -rf "$work"; mkdir -p "$work/before"
cp -r "$corpus" "$work/before/debian"
cp -r "$here/corpus" "$work/before/pbc-corpus"
cp -r "$here/examples" "$work/before/examples"
find "$work/before" -type f ! -name '*.pp' -delete
cp -r "$work/before" "$work/after"
cp -r "$work/before" "$work/lint-fixed"
status=0

"$pbc" fmt --check "$work/before" > "$work/to-change" 2> "$work/fmt-errors" || true
files=$(find "$work/before" -name '*.pp' | wc -l)
bytes=$(find "$work/before" -name '*.pp' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
not_parsed=$(grep -a -c '^error\[' "$work/fmt-errors" || true)
refused=$(grep -a -c 'FORMAT_CHANGED_MEANING' "$work/fmt-errors" || true)
echo "fmt: $files files ($bytes bytes); $(wc -l < "$work/to-change") laid out anew; diagnostics of files left alone: $not_parsed; refused: $refused"
[ "$refused" = 0 ] || { echo "fmt: layouts refused (a bug in pbc):" >&2; grep -a -A3 FORMAT_CHANGED_MEANING "$work/fmt-errors" >&2; status=1; }

"$pbc" fmt "$work/after" 2>/dev/null || true
"$pbc" fmt --check "$work/after" > "$work/changed-again" 2>/dev/null || true
if [ -s "$work/changed-again" ]; then
  echo "fmt: laid out again, these change (not idempotent):" >&2; cat "$work/changed-again" >&2; status=1
else
  echo "fmt: laid out again: no file changes"
fi

"$tool" fmt-comments "$work/before" "$work/after" || status=1

# Puppet's own PN of each file it accepts, before and after.
for side in before after; do
  (cd "$work/$side" && find . -name '*.pp' | LC_ALL=C sort) > "$work/$side.list"
  ruby "$here/scripts/puppet-oracle.rb" "$work/$side" "$work/$side.list" "$work/$side.tsv" "$work/$side-pn"
done
accepted=$(awk -F'\t' '$2 == "ok"' "$work/before.tsv" | wc -l)
if diff -r -q "$work/before-pn" "$work/after-pn" > "$work/pn-diff"; then
  echo "fmt: Puppet's PN of the $accepted files it accepts: the same before and after"
else
  echo "fmt: Puppet's PN differs:" >&2; cat "$work/pn-diff" >&2; status=1
fi
if ! diff <(cut -f1,2 "$work/before.tsv") <(cut -f1,2 "$work/after.tsv") > /dev/null; then
  echo "fmt: Puppet's verdicts differ before and after:" >&2
  diff <(cut -f1,2 "$work/before.tsv") <(cut -f1,2 "$work/after.tsv") >&2 || true
  status=1
fi

# puppet-lint's layout checks on the files Puppet accepts.
checks=arrow_alignment,arrow_on_right_operand_line,hard_tabs,trailing_whitespace,2sp_soft_tabs,140chars
awk -F'\t' '$2 == "ok" { print $1 }' "$work/before.tsv" > "$work/accepted"
for side in before after; do
  (cd "$work/$side" && xargs -a "$work/accepted" -n 200 puppet-lint --only-checks "$checks" \
     --log-format '%{check}' 2>/dev/null || true) | { grep -a -E '^[a-z0-9_]+$' || true; } | sort | uniq -c > "$work/lint-$side"
done
echo "fmt: puppet-lint's layout warnings on the accepted files (count, check), before:"
sed 's/^/  /' "$work/lint-before"
echo "fmt: after:"
sed 's/^/  /' "$work/lint-after"
if grep -v -E ' (140chars)$' "$work/lint-after" | grep -q .; then
  echo "fmt: puppet-lint still finds layout problems pbc fmt should fix" >&2; status=1
fi
# Long lines: those left have no bracket to break (a string, a comment, a heredoc's tag line);
# wrapping must never make more.
long_before=$(awk '$2 == "140chars" { print $1 }' "$work/lint-before"); long_after=$(awk '$2 == "140chars" { print $1 }' "$work/lint-after")
if [ "${long_after:-0}" -gt "${long_before:-0}" ]; then
  echo "fmt: more lines past 140 characters after than before" >&2; status=1
fi

# Speed, same files, same run: pbc fmt (every core) and puppet-lint --fix (one Ruby process per
# batch of files, as a CI run would call it), best of three.
best() {
  local best_s=
  for _ in 1 2 3; do
    rm -rf "$work/timed"; cp -r "$work/before" "$work/timed"; sync
    local t0 t1
    t0=$(date +%s.%N)
    "$@" "$work/timed" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    best_s=$(echo "$t0 $t1 ${best_s:-1e9}" | awk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
  done
  echo "$best_s"
}
lint_fix() { (cd "$1" && find . -name '*.pp' -print0 | xargs -0 -n 200 puppet-lint --fix --only-checks "$checks"); }
pbc_s=$(best "$pbc" fmt)
lint_s=$(best lint_fix)
awk -v b="$bytes" -v p="$pbc_s" -v l="$lint_s" 'BEGIN {
  printf "fmt: speed on %.1f MB: pbc fmt %.3f s (%.1f MB/s), puppet-lint --fix (layout checks) %.3f s (%.2f MB/s): %.0fx\n",
    b / 1e6, p, b / 1e6 / p, l, b / 1e6 / l, l / p }'
exit $status
