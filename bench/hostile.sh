#!/usr/bin/env bash
# The time and peak RSS of every hostile case (issue 12), before and after the
# fixes, in one run. Run by hand from anywhere in the repository:
#   bench/hostile.sh BEFORE_DIR AFTER_DIR [CASE...]
# each DIR holding the six binaries (serq-parse, serq-link, serq-sim,
# serq-report, serq-view, serq), say copied out of two `bazel build -c opt`
# trees; CASE names limit the run to those cases. Prints a Markdown table.
#
# The cases are testdata/hostile/cases.sh, the list hostile_test.sh checks:
# the same commands, the same inputs (made afresh for each side with that
# side's tools). What differs from the test: the test's per-case limits are
# replaced by one safety cap for every case, `ulimit -v` HOSTILE_MEM_MB
# (default 4096) and `timeout` HOSTILE_WALL seconds of wall time (default
# 60; then SIGKILL 5 s later), so that a case which hangs or eats memory
# before the fixes shows how far it got; and stdout goes to /dev/null (the
# write-* cases still write to /dev/full themselves).
#
# A flag that a side's serq and serq-sim do not list in --help (the bounds
# --max-sessions, --max-events, --max-cpu came with the fixes) is dropped
# from that side's command, value and all, and the case is marked "(no FLAG)":
# what the input did before there was a flag to bound it.
#
# Columns, for each side: what the case ended in ("exit N"; "killed at 60 s"
# for the timeout; "bad_alloc" for exit 134 with std::bad_alloc on stderr;
# "signal N"), followed by "ok" when that is the status and error
# hostile_test.sh wants; wall seconds; CPU seconds (user + system); peak RSS
# in MB, all from `/usr/bin/time -f '%e %U %S %M'` around the timeout.
set -u
if [ $# -lt 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: bench/hostile.sh BEFORE_DIR AFTER_DIR [CASE...]" >&2
  exit 2
fi
before_dir=$(cd "$1" && pwd) after_dir=$(cd "$2" && pwd)
shift 2
only=" $* "
cd "$(dirname "$0")/.." || exit 2
for d in "$before_dir" "$after_dir"; do
  for t in serq-parse serq-link serq-sim serq-report serq-view serq; do
    [ -x "$d/$t" ] || { echo "bench/hostile.sh: no executable $d/$t" >&2; exit 2; }
  done
done
mem_mb=${HOSTILE_MEM_MB:-4096}
wall=${HOSTILE_WALL:-60}
base_path=$PATH
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
declare -A result   # side/name -> "status|wall|cpu|rss"
names=()

# Measures one case on $side (the sourcer's case_, see cases.sh).
case_() {
  local name=$1 want=$4 pattern=$5; shift 6
  [ "$only" = "  " ] || [[ $only == *" $name "* ]] || return 0
  [ "$side" = before ] && names+=("$name")
  local args=() dropped="" a skip=0
  for a in "$@"; do
    if [ $skip = 1 ]; then skip=0; continue; fi
    case " $unknown " in
      *" ${a%%=*} "*) dropped+="${dropped:+, }${a%%=*}"; [[ $a == *=* ]] || skip=1; continue ;;
    esac
    args+=("$a")
  done
  echo "  $side $name" >&3
  T="$tmp/time" bash -c "ulimit -v $((mem_mb * 1024)); exec /usr/bin/time -o \"\$T\" -f '%e %U %S %M' timeout -k 5 $wall \"\$@\"" \
    _ "${args[@]}" >/dev/null 2>"$tmp/err" </dev/null
  local got=$? status e u s m
  read -r e u s m < <(tail -n 1 "$tmp/time")
  case $got in
    124) status="killed at $wall s" ;;
    137) status="killed at $((wall + 5)) s" ;;
    134) if grep -q bad_alloc "$tmp/err"; then status=bad_alloc; else status="signal 6"; fi ;;
    *) if [ "$got" -gt 128 ]; then status="signal $((got - 128))"; else status="exit $got"; fi ;;
  esac
  if [ "$got" = "$want" ] && { [ -z "$pattern" ] || grep -qF -- "$pattern" "$tmp/err"; }; then
    status+=" ok"
  fi
  [ -n "$dropped" ] && status+=" (no $dropped)"
  result[$side/$name]="$status|$e|$(echo "$u + $s" | bc -l)|$(echo "$m / 1024" | bc -l)"
}

exec 3>&2   # progress, while the setup's stderr goes to a file
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average at the start: $(load)" >&2
loads="start $(load)"
for side in before after; do
  dir=${side}_dir
  export PATH="${!dir}:$base_path"
  help=$( { serq --help; serq run --help; serq-sim --help; } 2>&1 )
  unknown=""
  for f in --max-sessions --max-events --max-cpu; do
    grep -q -- "$f" <<<"$help" || unknown+=" $f"
  done
  tmp="$scratch/$side"
  mkdir -p "$tmp"
  here=testdata/hostile
  echo "$side: ${!dir}${unknown:+ (dropping$unknown)}" >&2
  # The setup lines' own errors (a side's tools may refuse an input) go to
  # setup.err; a case whose input is missing shows it in its status.
  . "$here/cases.sh" 2>"$tmp/setup.err"
  if [ -s "$tmp/setup.err" ]; then
    echo "$side: setup wrote to stderr:" >&2
    head -n 5 "$tmp/setup.err" | sed 's/^/  | /' >&2
  fi
  loads+=", after $side $(load)"
done

echo "load average (1, 5, 15 min): $loads"
echo "cap: ulimit -v $mem_mb MB, timeout $wall s; CPU = user + system s; RSS = peak resident MB"
echo
echo "| case | before | wall s | CPU s | RSS MB | after | wall s | CPU s | RSS MB |"
echo "|---|---|--:|--:|--:|---|--:|--:|--:|"
for name in "${names[@]}"; do
  row="| $name"
  for side in before after; do
    IFS='|' read -r status e cpu rss <<<"${result[$side/$name]:-missing|||}"
    if [ -n "$e" ]; then
      row+=" | $status | $e | $(printf '%.2f' "$cpu") | $(printf '%.0f' "$rss")"
    else
      row+=" | $status | | |"
    fi
  done
  echo "$row |"
done
