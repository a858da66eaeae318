#!/usr/bin/env bash
# scripts/verdicts.sh [CORPUS_DIR] [PUPPET_VERDICTS_TSV]
#
# Compares pbc's accept/reject verdict (and the line of the first error) with Puppet 7's on the
# real-world corpus. Builds the corpus and Puppet's verdicts with ../shared/tools when missing
# (that installs Debian's puppet-agent and puppet-module-* packages), builds pbc in release mode,
# prints the agreement and lists every file that differs. Exits 1 on any verdict difference.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# The build profile: `release` unless PBC_PROFILE names another (`.ci/run` uses `ci`).
profile=${PBC_PROFILE:-release}
tools="$here/../shared/tools"
corpus=${1:-/tmp/pbc-corpus}
verdicts=${2:-$corpus.verdicts.tsv}
[ -f "$corpus/MANIFEST.tsv" ] || bash "$tools/make-corpus.sh" "$corpus"
[ -f "$verdicts" ] || bash "$tools/puppet-verdicts.sh" "$corpus" "$verdicts"
(cd "$here" && cargo build --profile "$profile" --quiet)
pbc="$here/target/$profile/pbc"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$pbc" parse --error-format json "$corpus" > "$out" || true
python3 - "$corpus" "$verdicts" "$out" <<'PY'
import json, sys, os
corpus, verdicts, out = sys.argv[1:4]
puppet = {}
for line in open(verdicts):
    parts = line.rstrip("\n").split("\t")
    if len(parts) >= 2:
        puppet[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
report = json.load(open(out))
first = {}
for d in report["diagnostics"]:
    if d["severity"] != "error":
        continue
    rel = os.path.relpath(d["file"], corpus)
    first.setdefault(rel, d["line"])
agree = differ = line_agree = both_reject = 0
diffs = []
for rel, (verdict, msg) in sorted(puppet.items()):
    ours = "error" if rel in first else "ok"
    if ours == verdict:
        agree += 1
        if ours == "error":
            both_reject += 1
            pline = msg.split(" ")[1].split(":")[0] if " " in msg else ""
            if str(first[rel]) == pline:
                line_agree += 1
            else:
                diffs.append(f"line   {rel}: puppet {msg!r}, pbc line {first[rel]}")
    else:
        differ += 1
        diffs.append(f"verdict {rel}: puppet {verdict} {msg!r}, pbc {ours}" + (f" (line {first[rel]})" if rel in first else ""))
total = agree + differ
print(f"files: {total}  agree: {agree}  differ: {differ}  agreement: {100.0 * agree / max(total, 1):.2f}%")
print(f"both reject: {both_reject}  first-error line agrees: {line_agree}")
for d in diffs:
    print("  " + d)
sys.exit(1 if differ else 0)
PY
