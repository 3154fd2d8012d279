#!/usr/bin/env bash
# Where each server's CPU goes, per action: the kernel's and user space's share, the system calls,
# page faults, context switches and softirqs, and the functions, each per action answered, side
# by side with a yardstick's (docs/benchmarks.md, issue 18, stop 55).
#
#   bench/profile.sh [TARGET ...]       (default: aeroplane broadcast)
#
# TARGET is `aeroplane` (this checkout's release server), `broadcast` or `echo` (the yardsticks of
# bench/run.sh), or `name=<binary of our server>` (another build, e.g. an earlier commit's). Each
# runs as bench/run.sh runs it in its closed loop: a fresh process pinned to core 0, our server
# with its limits lifted, the release load generator on core 1 playing ROOMS=1000 rooms for
# DURATION=20s, twice: for the whole of one run `perf record -e cpu-clock -g` samples the server
# (FREQUENCY=2000 a second; no hardware counters needed), and for the whole of the other `perf
# stat` counts its events.
#
# It prints, for each target, the microseconds of CPU per action in the kernel and in user space,
# the events per action, the time spent inside each kind of system call and in page faults, each
# per action and per call, and the SYMBOLS=25 dearest functions; then, for every target after the
# first, the functions whose microseconds per action differ most from the first target's. Read it
# with bench/run.sh's figures, not instead of them: sampling is coarser than the process's own
# CPU time, the counts come from another run than the profile, and one run moves by ±15% on a
# noisy machine. Needs perf, jq and python3; the raw data stays in OUT
# (`perf report -i OUT/<target>.perf.data` to look further).
set -euo pipefail
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
    # This file's opening comment.
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
ROOMS="${ROOMS:-1000}"
DURATION="${DURATION:-20s}"
FREQUENCY="${FREQUENCY:-2000}"
SYMBOLS="${SYMBOLS:-25}"
LEVEL="${LEVEL:-random}"
PORT="${PORT:-18500}"
OUT="${OUT:-$(mktemp -d /tmp/aeroplane-profile.XXXXXX)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release"
# What `perf stat` counts: a missing tracepoint (another kernel) is left out, not an error.
EVENTS=(context-switches page-faults irq:softirq_entry syscalls:sys_enter_sendto
    syscalls:sys_enter_recvfrom syscalls:sys_enter_write syscalls:sys_enter_writev
    syscalls:sys_enter_epoll_wait syscalls:sys_enter_futex)

log() { printf '== %s\n' "$*" >&2; }

for tool in perf jq python3 taskset; do
    if ! command -v "$tool" >/dev/null; then
        echo "$0 needs $tool" >&2
        exit 2
    fi
done
[[ $# -gt 0 ]] || set -- aeroplane broadcast

log "building release binaries into $CARGO_TARGET_DIR"
(cd "$ROOT" && cargo build --release --quiet -p aeroplane-server -p aeroplane-loadtest -p aeroplane-bench-echo)
ulimit -n "$(ulimit -Hn)"
mkdir -p "$OUT"
events=()
for event in "${EVENTS[@]}"; do
    if perf stat -e "$event" -- true >/dev/null 2>&1; then events+=(-e "$event"); fi
done

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# load_run NAME KIND BINARY WATCH: starts the server, runs the load generator against it with
# WATCH (`record` or `count`) attached to the server, stops both; the load generator's summary
# goes to OUT/NAME.WATCH.load.json.
load_run() {
    local name="$1" kind="$2" binary="$3" watch="$4" server perf
    local data=""
    if [[ "$kind" == aeroplane ]]; then data="$(mktemp -d "$OUT/data.XXXXXX")"; fi
    serve_pinned 0 "$kind" "$binary" "$PORT" "$OUT/$name.$watch.server.log" "$data"
    server=$!
    pids=("$server")
    if ! wait_listening "$PORT" 10; then
        echo "$name did not start; its log: $OUT/$name.$watch.server.log" >&2
        exit 1
    fi
    if [[ "$watch" == record ]]; then
        perf record -q -e cpu-clock -F "$FREQUENCY" -g -p "$server" -o "$OUT/$name.perf.data" \
            >"$OUT/$name.record.log" 2>&1 &
    else
        perf stat -x, "${events[@]}" -p "$server" -o "$OUT/$name.stat.csv" 2>"$OUT/$name.stat.log" &
    fi
    perf=$!
    pids+=("$perf")
    log "$name: $ROOMS rooms, $DURATION, closed loop, perf $watch"
    taskset -c 1 "$BIN/aeroplane-loadtest" --server "http://127.0.0.1:$PORT" --target "$kind" \
        --rooms "$ROOMS" --duration "$DURATION" --level "$LEVEL" --json \
        --source-addrs "$LOOPBACK_SOURCES" >"$OUT/$name.$watch.load.json" \
        2>"$OUT/$name.$watch.load.err" || true
    kill -INT "$perf" 2>/dev/null || true
    wait "$perf" || true
    local output="$OUT/$name.perf.data" log="$OUT/$name.record.log"
    [[ "$watch" == record ]] || output="$OUT/$name.stat.csv" log="$OUT/$name.stat.log"
    if [[ ! -s "$output" ]]; then
        echo "perf $watch of $name wrote nothing (perf_event_paranoid, or no permission?); it said:" >&2
        cat "$log" >&2
        exit 1
    fi
    # Our server and the echo both end through `main` on SIGTERM.
    kill -TERM "$server"
    wait "$server" || true
    pids=()
    PORT=$((PORT + 1))
    if [[ "$(jq -r '.actions // 0' "$OUT/$name.$watch.load.json" 2>/dev/null || echo 0)" == 0 ]]; then
        echo "$name: no action answered; the load generator said:" >&2
        cat "$OUT/$name.$watch.load.err" >&2
        exit 1
    fi
}

names=()
for target in "$@"; do
    name="${target%%=*}"
    case "$target" in
    *=*) kind=aeroplane binary="${target#*=}" ;;
    aeroplane) kind=aeroplane binary="$BIN/aeroplane-server" ;;
    broadcast | echo) kind="$target" binary="$BIN/bench-echo" ;;
    *)
        echo "unknown target $target (aeroplane, broadcast, echo or name=<binary>)" >&2
        exit 2
        ;;
    esac
    # Two runs: counting system calls through their tracepoints makes each call dearer
    # (`perf_tp_event`), so the profile is taken in a run of its own.
    load_run "$name" "$kind" "$binary" record
    load_run "$name" "$kind" "$binary" count
    perf report -i "$OUT/$name.perf.data" --no-children --sort sym -g none --stdio \
        --percent-limit 0.01 >"$OUT/$name.symbols.txt" 2>/dev/null
    perf report -i "$OUT/$name.perf.data" --children --sort sym -g none --stdio \
        --percent-limit 0.01 >"$OUT/$name.inclusive.txt" 2>/dev/null
    names+=("$name")
done

python3 - "$OUT" "$SYMBOLS" "${names[@]}" <<'EOF'
import json, re, sys

out, shown, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def sampled_ns(path):
    """The CPU time a `perf report` of cpu-clock samples covers, in nanoseconds."""
    text = open(path).read()
    return float(re.search(r"# Event count \(approx\.\): (\d+)", text).group(1))

def per_action(path, pattern, actions):
    """Each line of a `perf report` that `pattern` matches (its first group the share): the
    other groups, and the share as µs per action."""
    total_ns = sampled_ns(path)
    for line in open(path):
        found = re.match(pattern, line)
        if found:
            yield found.groups()[1:], float(found.group(1)) / 100 * total_ns / 1e3 / actions

def load(name):
    """Actions, µs of CPU per action, µs per action by function ('k' kernel, '.' user space),
    events per action."""
    actions = json.load(open(f"{out}/{name}.record.load.json"))["actions"]
    counted = json.load(open(f"{out}/{name}.count.load.json"))["actions"]
    path = f"{out}/{name}.symbols.txt"
    symbols = {}
    for key, value in per_action(path, r"\s*([\d.]+)%\s+\[(.)\]\s+(.+?)\s*$", actions):
        symbols[key] = symbols.get(key, 0) + value
    events = {}
    for line in open(f"{out}/{name}.stat.csv"):
        fields = line.strip().split(",")
        if len(fields) > 2 and fields[0].replace(".", "").isdigit():
            events[fields[2]] = float(fields[0]) / counted
    return actions, sampled_ns(path) / 1e3 / actions, symbols, events

# The kernel's entry points whose time includes all they call, and the event counting each.
ENTRIES = [("sendto", "__x64_sys_sendto", "syscalls:sys_enter_sendto"),
           ("recvfrom", "__x64_sys_recvfrom", "syscalls:sys_enter_recvfrom"),
           ("epoll_wait", "do_epoll_wait", "syscalls:sys_enter_epoll_wait"),
           ("futex", "__x64_sys_futex", "syscalls:sys_enter_futex"),
           ("page faults", "asm_exc_page_fault", "page-faults"),
           ("scheduling", "__schedule", "context-switches")]

def inclusive(name, actions):
    """µs per action inside each kernel function, callees included."""
    pattern = r"\s*([\d.]+)%\s+[\d.]+%\s+\[k\]\s+(\S+)\s*$"
    return {symbol: value for (symbol,), value in
            per_action(f"{out}/{name}.inclusive.txt", pattern, actions)}

def short(symbol):
    return symbol if len(symbol) <= 100 else symbol[:97] + "..."

runs = {name: load(name) for name in names}
for name, (actions, cpu, symbols, events) in runs.items():
    kernel = sum(v for (space, _), v in symbols.items() if space == "k")
    user = sum(v for (space, _), v in symbols.items() if space != "k")
    print(f"\n## {name}: {actions:,} actions, {cpu:.2f} µs of CPU per action sampled "
          f"(kernel {kernel:.2f}, user space {user:.2f})")
    print("events per action: " + ", ".join(f"{k} {v:.3f}" for k, v in events.items()))
    inside = inclusive(name, actions)
    print("inside, µs per action (per call): " + ", ".join(
        f"{label} {inside.get(entry, 0):.2f}"
        + (f" ({inside.get(entry, 0) / events[event]:.2f})" if events.get(event) else "")
        for label, entry, event in ENTRIES))
    for (space, symbol), value in sorted(symbols.items(), key=lambda kv: -kv[1])[:shown]:
        print(f"  {value:7.3f} [{space}] {short(symbol)}")

first = names[0]
for name in names[1:]:
    base, other = runs[first][2], runs[name][2]
    keys = set(base) | set(other)
    diff = sorted(keys, key=lambda k: (-abs(base.get(k, 0) - other.get(k, 0)), k))[:shown]
    print(f"\n## {first} against {name}: µs per action, the largest differences")
    print(f"  {'diff':>7} {first[:8]:>8} {name[:8]:>8}")
    for space, symbol in diff:
        a, b = base.get((space, symbol), 0), other.get((space, symbol), 0)
        print(f"  {a - b:+7.3f} {a:8.3f} {b:8.3f} [{space}] {short(symbol)}")
EOF
