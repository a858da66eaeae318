#!/usr/bin/env bash
# Times one command, or two in turn (A B A B ...), as whole processes: one warm-up run of each,
# then RUNS counted runs of each, their output thrown away. Prints each command's wall time
# (minimum, median, maximum, in seconds) and peak memory (the median, in MB), and with two
# commands the median of the ratios A/B pair by pair: a shared machine's speed drifts from one
# minute to the next, and a ratio of runs taken side by side is what holds across it. Each wall
# time includes starting `/usr/bin/time` and `sh` (a few milliseconds, printed first as the wall
# time of `true`), which matters for commands that take tens of milliseconds.
# Usage: bash scripts/alternate.sh RUNS 'COMMAND A' ['COMMAND B']
#   each command is run by `sh -c 'exec COMMAND'`; needs bash 5 and /usr/bin/time (GNU time).
# Example: bash scripts/alternate.sh 20 'target/release/pbc parse DIR' 'target/go-parse/go-parse DIR'
set -euo pipefail
if [ $# -lt 2 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
  echo "usage: bash scripts/alternate.sh RUNS 'COMMAND A' ['COMMAND B']" >&2
  exit 2
fi
if [ "${BASH_VERSINFO[0]}" -lt 5 ]; then
  echo "alternate: needs bash 5 (for \$EPOCHREALTIME)" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "alternate: /usr/bin/time is missing (Debian: apt-get install time)" >&2
  exit 2
fi
runs=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Runs command number $1 once; appends "wall_seconds peak_kb exit_status" to its record.
run_once() {
  local start end status=0
  start=$EPOCHREALTIME
  /usr/bin/time -f %M -o "$work/peak" sh -c "exec ${commands[$1]}" >/dev/null 2>&1 || status=$?
  end=$EPOCHREALTIME
  echo "$start $end $(tail -n 1 "$work/peak") $status" |
    awk '{ printf "%.6f %s %s\n", $2 - $1, $3, $4 }' >> "$work/record$1"
}

commands=(true)
for _ in 1 2 3 4 5; do
  run_once 0
done
printf 'the harness alone (true): median wall %s s\n' "$(cut -d' ' -f1 "$work/record0" | median)"
rm "$work/record0"
commands=("$@")
count=${#commands[@]}
for i in $(seq 0 $((count - 1))); do
  run_once "$i"
  : > "$work/record$i"
done
for _ in $(seq "$runs"); do
  for i in $(seq 0 $((count - 1))); do
    run_once "$i"
  done
done

names=(A B)
for i in $(seq 0 $((count - 1))); do
  record=$work/record$i
  wall=$(cut -d' ' -f1 "$record" | sort -g)
  printf '%s = %s\n' "${names[$i]}" "${commands[$i]}"
  printf '%s wall s: min %s, median %s, max %s; peak MB: median %s; %s of %s runs exited 0\n' \
    "${names[$i]}" "$(head -n 1 <<< "$wall")" "$(median <<< "$wall")" "$(tail -n 1 <<< "$wall")" \
    "$(cut -d' ' -f2 "$record" | median | awk '{ printf "%.1f", $1 / 1024 }')" \
    "$(awk '$3 == 0' "$record" | wc -l)" "$runs"
done
if [ "$count" -eq 2 ]; then
  ratios=$(paste -d' ' "$work/record0" "$work/record1" | awk '{ printf "%.4f\n", $1 / $4 }' | sort -g)
  printf 'A/B wall, pair by pair: min %s, median %s, max %s\n' \
    "$(head -n 1 <<< "$ratios")" "$(median <<< "$ratios")" "$(tail -n 1 <<< "$ratios")"
fi
