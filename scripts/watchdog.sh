#!/usr/bin/env bash
# Runs a command with a time limit, and when it is still running at the limit, prints where
# every process under it stands (each thread's stack, from gdb when the machine has it, else
# each thread's kernel wait channel and system call) before it stops them all.
#
#   bash scripts/watchdog.sh SECONDS COMMAND [ARGS...]
#
# Why: a test that hangs holds a CI run until the run's own limit ends it, and all the log then
# says is which test was running (a CI run of 2026-12-06 ended that way, the syntax crate's
# `a_large_file_parsed_in_pieces_parses_as_a_whole` running past 60 s; here the same test took
# 10-25 s in every one of 80 runs, on an idle and a loaded machine). With the stacks, the
# next such run says where it waited. The exit status is the command's, or 124 at the limit.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: watchdog.sh SECONDS COMMAND [ARGS...]" >&2
  exit 2
fi
limit=$1
shift

"$@" &
watched=$!
started=$SECONDS

# Every process under the one given (not that one itself), children before their own
# children; read from /proc, so that it needs no `ps`.
parent_of() {
  local line
  read -r line < "/proc/$1/stat" 2> /dev/null || return 1
  # The command's name, in parentheses, may hold spaces: the fields after it are fixed.
  line=${line##*) }
  set -- $line
  echo "$2"
}
descendants() {
  local parents=" $1 " found="" next pid ppid
  while [ "$parents" != " " ]; do
    next=" "
    for dir in /proc/[0-9]*; do
      pid=${dir#/proc/}
      ppid=$(parent_of "$pid") || continue
      case "$parents" in *" $ppid "*)
        found="$found $pid"
        next="$next$pid "
        ;;
      esac
    done
    parents=$next
  done
  echo "$found"
}

where_it_stands() {
  local pid=$1 task
  echo "watchdog: process $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" >&2
  if command -v gdb > /dev/null; then
    timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1 \
      | grep -v '^\[New LWP\|^\[Thread debugging\|^Using host libthread_db' >&2 || true
  else
    for task in /proc/"$pid"/task/*; do
      echo "watchdog:   thread ${task##*/} ($(cat "$task/comm" 2>/dev/null)):" \
        "waits in $(cat "$task/wchan" 2>/dev/null), system call $(cut -d' ' -f1 "$task/syscall" 2>/dev/null)" >&2
    done
  fi
}

while kill -0 "$watched" 2> /dev/null; do
  if [ $((SECONDS - started)) -ge "$limit" ]; then
    echo "watchdog: still running after $limit s: $*" >&2
    # What else holds the machine (a process a test left behind is no longer under the command).
    echo "watchdog: the machine's busiest processes, and its memory:" >&2
    ps -eo pid,ppid,stat,etimes,pcpu,rss,args --sort=-pcpu 2> /dev/null | head -15 | cut -c1-200 >&2 || true
    grep -E '^(MemTotal|MemAvailable):' /proc/meminfo >&2
    under=$(descendants "$watched")
    for pid in $under; do
      where_it_stands "$pid"
    done
    kill -TERM "$watched" $under 2> /dev/null
    # Five seconds to end on their own, then no more.
    for _ in 1 2 3 4 5; do
      kill -0 "$watched" $under 2> /dev/null || break
      sleep 1
    done
    kill -KILL "$watched" $under 2> /dev/null
    wait "$watched" 2> /dev/null
    exit 124
  fi
  sleep 1
done
wait "$watched"
