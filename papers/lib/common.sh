# papers/lib/common.sh: what every claim's run script shares (sourced, not run). Sets ROOT, DIR (the claim's folder),
# QUICK (yes/no), REPS, RAW and META (temporary files), JAVA, FLAGS, JRUN; provides papers_run, papers_meta and
# papers_report. A claim's script: source it, parse its options with papers_options "$@", run its measurements
# through papers_run in interleaved repetitions, write its meta keys, call papers_report.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="$(cd "$(dirname "$0")" && pwd)"
NAME="$(basename "$DIR")"
cd "$ROOT"
QUICK=yes
REPS=""
START=$(date +%s)
LOAD0=$(cut -d" " -f1-3 /proc/loadavg)
# Longest any one measured program may run before it is killed (its JVMs with it), seconds.
RUN_TIMEOUT=${PAPERS_RUN_TIMEOUT:-300}
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

papers_options() { # --quick | --full | --reps N
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick) QUICK=yes; shift ;;
      --full) QUICK=no; shift ;;
      --reps) REPS="$2"; shift 2 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
      *) echo "$NAME: unknown option $1" >&2; exit 2 ;;
    esac
  done
  if [ -z "$REPS" ]; then if [ "$QUICK" = yes ]; then REPS=3; else REPS=5; fi; fi
}

papers_build() { # builds jrma and the papers module (reactor, no install) when their outputs are missing
  if [ ! -f papers/target/classes/io/jrma/papers/Report.class ] || [ ! -d papers/target/lib ] \
      || ! ls jrma/target/lib/launcher-*.jar >/dev/null 2>&1 || [ ! -d bench/target/classes ]; then
    echo "$NAME: building (mvn package -pl papers -am)"
    mvn -B -ntp -q package -DskipTests -Dmaven.javadoc.skip -pl papers -am
  fi
  FLAGS=$("$JAVA" -cp rma-core/target/classes io.jrma.JvmFlags)
  CP="papers/target/classes:papers/target/lib/*"
  JRUN="bin/jrmarun"
}

TMP=$(mktemp -d "/tmp/papers-$NAME.XXXXXX")
RAW="$TMP/raw.csv"
META="$TMP/meta.txt"
: > "$RAW"
: > "$META"
FAILED=0
CHILD=""
# on any exit, the measuring program still running goes too (timeout makes it a process group of its own)
papers_cleanup() {
  if [ -n "$CHILD" ]; then kill -- -"$CHILD" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap papers_cleanup EXIT
trap 'exit 143' TERM INT

# papers_exec COMMAND...: runs it under the timeout, its output in $TMP/stdout and $TMP/stderr; returns its status
papers_exec() {
  timeout --kill-after=15 "$RUN_TIMEOUT" "$@" > "$TMP/stdout" 2> "$TMP/stderr" &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return $rc
}

# papers_run LABEL COMMAND...: runs one measuring program under a timeout; its series,x,metric,rep,value lines go
# to RAW; a failure is reported and counted (the row is then missing from the table), not fatal.
papers_run() {
  local label="$1"; shift
  local rc=0
  papers_exec "$@" || rc=$?
  if [ $rc -ne 0 ]; then
    FAILED=$((FAILED + 1))
    echo "$NAME: $label failed (exit $rc):" >&2
    tail -5 "$TMP/stderr" | sed 's/^/    /' >&2
  fi
  grep -E '^[^,#]+,[^,]+,[^,]+,[0-9]+,[-0-9.eE+naNfiy]+$' "$TMP/stdout" >> "$RAW" || true
}

# papers_osu LABEL SERIES METRIC REP COMMAND...: runs an OSU-style program ("size value" lines) and records them.
papers_osu() {
  local label="$1" series="$2" metric="$3" rep="$4"; shift 4
  local rc=0
  papers_exec "$@" || rc=$?
  if [ $rc -ne 0 ]; then
    FAILED=$((FAILED + 1))
    echo "$NAME: $label failed (exit $rc):" >&2
    tail -5 "$TMP/stderr" | sed 's/^/    /' >&2
  fi
  awk -v s="$series" -v m="$metric" -v r="$rep" \
    '/^[0-9]+ +[0-9.]+$/ {print s "," $1 "," m "," r "," $2}' "$TMP/stdout" >> "$RAW"
}

meta() { local k="$1"; shift; echo "$k=$*" >> "$META"; } # meta KEY TEXT...: the words joined by spaces

papers_meta() { # the header every RESULTS.md has
  meta id "$NAME"
  meta command "papers/$NAME/run$([ "$QUICK" = yes ] && echo " --quick" || echo " --full") --reps $REPS"
  meta date "$(date -u '+%Y-%m-%d %H:%M UTC')"
  local cpu mem failed=""
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
  mem=$(free -g | awk '/Mem:/ {print $2}')
  [ "$FAILED" -gt 0 ] && failed=", $FAILED measuring runs failed (their rows are missing)"
  meta machine "$(nproc) cores, $cpu, $mem GiB, $(uname -sr)"
  meta commit "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
  meta jdk "$("$JAVA" -version 2>&1 | head -1)"
  meta load.before "$LOAD0"
  meta load.after "$(cut -d" " -f1-3 /proc/loadavg)"
  meta mode "$([ "$QUICK" = yes ] && echo quick || echo full), $REPS interleaved repetitions$failed"
  meta seconds "$(( $(date +%s) - START ))"
}

papers_report() { # writes the folder's RESULTS.md and plot.png, keeps raw.csv beside them
  if [ ! -s "$RAW" ]; then
    echo "$NAME: no measurements (every run failed)" >&2
    exit 1
  fi
  { echo "series,x,metric,rep,value"; cat "$RAW"; } > "$DIR/raw.csv"
  cp "$META" "$DIR/meta.txt"
  "$JAVA" -cp "$CP" io.jrma.papers.Report "$DIR/raw.csv" "$DIR/meta.txt" "$DIR"
  echo "$NAME: wrote $DIR/RESULTS.md and plot.png in $(( $(date +%s) - START )) s:" \
    "$(grep -m1 '^\*\*Verdict' "$DIR/RESULTS.md")"
}
