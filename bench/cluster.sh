#!/usr/bin/env bash
# The cluster benchmarks of issue 15 (docs/benchmarks.md, "Cluster").
#
#   bench/cluster.sh [failover|throughput|forwarded]
#
# Every run starts a fresh nats-server (JetStream, its own store directory) and fresh nodes
# (release build, each its own data directory and SQLite store), all on this machine, unpinned.
#
# failover (default): three nodes with --lease-ms $LEASE_MS; $ROOMS online rooms on node 1, each
#   warm with a few actions; node 1 is SIGKILLed; per room, the time from the kill to the first
#   `welcome` or `snapshot` served again (aeroplane-failover), then every game is played to its
#   end. For each repeat, each way of seating the players in $VIA: `direct` (on node 1: they
#   reconnect to nodes 2 and 3 with their seat tokens) and `others` (on nodes 2 and 3, forwarded
#   to node 1: their sockets stay open through the failover).
# throughput: closed loop of $LOAD_ROOMS rooms for $DURATION: one node against three nodes (each
#   with a third of the rooms and its own load generator), interleaved: actions per second and
#   server CPU per action, summed over the nodes (the nats-server's CPU is reported apart).
# forwarded: open loop at $RATE actions/s of $LOAD_ROOMS rooms on node 1 of two nodes, the
#   WebSockets once direct to node 1 and once through node 2 (--ws-via), interleaved: latency
#   percentiles, and CPU per action of both nodes together.
#
# Settings (environment): REPEATS=3 ROOMS=120 LEASE_MS=3000 VIA="direct others" LOAD_ROOMS=300
#   DURATION=20s RATE=1000 PORT=18600 OUT=<dir for raw results, default a fresh temporary one>
#   NATS_SERVER_BIN (default: what .ci/nats-up finds or installs) CARGO_TARGET_DIR.
# Needs jq and python3.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
MODE="${1:-failover}"
REPEATS="${REPEATS:-3}"
ROOMS="${ROOMS:-120}"
LEASE_MS="${LEASE_MS:-3000}"
VIA="${VIA:-direct others}"
LOAD_ROOMS="${LOAD_ROOMS:-300}"
DURATION="${DURATION:-20s}"
RATE="${RATE:-1000}"
PORT="${PORT:-18600}"
OUT="${OUT:-$(mktemp -d /tmp/aeroplane-cluster-bench.XXXXXX)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$CARGO_TARGET_DIR/release"
TICKS_PER_SECOND="$(getconf CLK_TCK)"

case "$MODE" in
failover | throughput | forwarded) ;;
*)
    echo "usage: $0 [failover|throughput|forwarded]" >&2
    exit 2
    ;;
esac

log() { printf '== %s\n' "$*" >&2; }

NATS="${NATS_SERVER_BIN:-$("$ROOT/.ci/nats-up")}"
log "building release binaries into $CARGO_TARGET_DIR"
(cd "$ROOT" && cargo build --release --quiet -p aeroplane-server -p aeroplane-loadtest)
ulimit -n "$(ulimit -Hn)"
mkdir -p "$OUT"
log "nats-server $NATS; raw results in $OUT"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

wait_port() {
    wait_listening "$1" 10 && return 0
    echo "nothing listens on port $1; logs in $OUT" >&2
    exit 1
}

# start_cluster RUN NODES: a nats-server on $PORT and NODES nodes on the next ports; sets
# NATS_PID and NODE_PIDS, NODE_URLS.
start_cluster() {
    local run="$1" nodes="$2" dir="$OUT/$1"
    mkdir -p "$dir"
    "$NATS" -js -sd "$dir/nats" -a 127.0.0.1 -p "$PORT" >"$dir/nats.log" 2>&1 &
    NATS_PID=$!
    PIDS+=("$NATS_PID")
    wait_port "$PORT"
    NODE_PIDS=()
    NODE_URLS=()
    for n in $(seq 1 "$nodes"); do
        local port=$((PORT + n))
        "$BIN/aeroplane-server" --listen "127.0.0.1:$port" --data-dir "$dir/node-$n" \
            --nats-url "nats://127.0.0.1:$PORT" --node-id "node-$n" --lease-ms "$LEASE_MS" \
            --log-level warn "${UNLIMITED[@]}" >"$dir/node-$n.log" 2>&1 &
        NODE_PIDS+=($!)
        PIDS+=($!)
        NODE_URLS+=("http://127.0.0.1:$port")
        wait_port "$port"
    done
}

stop_cluster() {
    for pid in "${NODE_PIDS[@]}" "$NATS_PID"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    PIDS=()
    PORT=$((PORT + 10))
}

cpu_ticks() {
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || {
        echo 0
        return
    }
    stat="${stat##*) }"
    # shellcheck disable=SC2086
    set -- $stat
    echo $((${12} + ${13}))
}

failover_runs() {
    for repeat in $(seq 1 "$REPEATS"); do
        for via in $VIA; do
            local run="failover-$via-$repeat"
            start_cluster "$run" 3
            local flags=()
            [[ "$via" == others ]] && flags+=(--via-others)
            log "failover $repeat/$REPEATS: $ROOMS rooms, players $via, lease $LEASE_MS ms"
            "$BIN/aeroplane-failover" --victim "${NODE_URLS[0]}" --victim-pid "${NODE_PIDS[0]}" \
                --others "${NODE_URLS[1]},${NODE_URLS[2]}" --rooms "$ROOMS" --finish --json \
                "${flags[@]}" >"$OUT/$run.json" 2>"$OUT/$run.err" || true
            cat "$OUT/$run.json" >&2
            stop_cluster
        done
    done
    python3 - "$OUT" <<'PY'
import glob, json, sys
rows = []
for path in sorted(glob.glob(f"{sys.argv[1]}/failover-*.json")):
    try:
        run = json.load(open(path))
    except ValueError:
        print(f"{path}: no result (see {path[:-5]}.err)")
        continue
    rows.append(run)
    print(f"{path.rsplit('/', 1)[1]:28} rooms {run['rooms']:4}  p50 {run['p50_ms']:7.0f} ms"
          f"  p99 {run['p99_ms']:7.0f} ms  max {run['max_ms']:7.0f} ms"
          f"  unserved {run['unserved']}  unfinished {run['unfinished']}")
PY
}

# load RUN URL [EXTRA...]: one load generator run, its JSON summary in $OUT/RUN.json.
load() {
    local run="$1" url="$2"
    shift 2
    "$BIN/aeroplane-loadtest" --server "$url" --rooms "$LOAD_ROOMS" --duration "$DURATION" \
        --json "$@" >"$OUT/$run.json" 2>"$OUT/$run.err" || true
}

throughput_runs() {
    for repeat in $(seq 1 "$REPEATS"); do
        for nodes in 1 3; do
            local run="throughput-$nodes-$repeat"
            start_cluster "$run" "$nodes"
            log "throughput $repeat/$REPEATS: $nodes node(s), $LOAD_ROOMS rooms, $DURATION"
            local before=() nats_before
            for pid in "${NODE_PIDS[@]}"; do before+=("$(cpu_ticks "$pid")"); done
            nats_before="$(cpu_ticks "$NATS_PID")"
            local share=$((LOAD_ROOMS / nodes)) jobs=()
            for n in $(seq 1 "$nodes"); do
                LOAD_ROOMS="$share" load "$run-gen$n" "${NODE_URLS[$((n - 1))]}" &
                jobs+=($!)
            done
            wait "${jobs[@]}"
            local ticks=0 i=0
            for pid in "${NODE_PIDS[@]}"; do
                ticks=$((ticks + $(cpu_ticks "$pid") - before[i]))
                i=$((i + 1))
            done
            echo "{\"nodes\": $nodes, \"server_cpu_seconds\": $(echo "$ticks / $TICKS_PER_SECOND" | bc -l), \"nats_cpu_seconds\": $(echo "($(cpu_ticks "$NATS_PID") - $nats_before) / $TICKS_PER_SECOND" | bc -l)}" >"$OUT/$run.json"
            stop_cluster
        done
    done
    python3 - "$OUT" <<'PY'
import glob, json, sys
out = sys.argv[1]
for path in sorted(glob.glob(f"{out}/throughput-?-?.json")):
    run = json.load(open(path))
    gens = [json.load(open(gen)) for gen in glob.glob(path[:-5] + "-gen*.json") if open(gen).read().strip()]
    actions = sum(gen["actions"] for gen in gens)
    seconds = max(gen["seconds"] for gen in gens)
    errors = sum(sum(gen["errors"].values()) for gen in gens)
    print(f"{path.rsplit('/', 1)[1]:24} nodes {run['nodes']}  actions/s {actions / seconds:8.0f}"
          f"  server CPU/action {run['server_cpu_seconds'] / actions * 1e6:6.1f} µs"
          f"  nats CPU/action {run['nats_cpu_seconds'] / actions * 1e6:6.1f} µs  errors {errors}")
PY
}

forwarded_runs() {
    for repeat in $(seq 1 "$REPEATS"); do
        for via in direct forwarded; do
            local run="forwarded-$via-$repeat"
            start_cluster "$run" 2
            local flags=(--rate "$RATE" --warmup 3s)
            [[ "$via" == forwarded ]] && flags+=(--ws-via "${NODE_URLS[1]}")
            log "forwarded $repeat/$REPEATS: $via, $LOAD_ROOMS rooms, $RATE actions/s"
            local a b
            a="$(cpu_ticks "${NODE_PIDS[0]}")"
            b="$(cpu_ticks "${NODE_PIDS[1]}")"
            load "$run-load" "${NODE_URLS[0]}" "${flags[@]}"
            local ticks=$(($(cpu_ticks "${NODE_PIDS[0]}") - a + $(cpu_ticks "${NODE_PIDS[1]}") - b))
            jq --argjson cpu "$(echo "$ticks / $TICKS_PER_SECOND" | bc -l)" --arg via "$via" \
                '. + {via: $via, server_cpu_seconds: $cpu}' "$OUT/$run-load.json" >"$OUT/$run.json"
            stop_cluster
        done
    done
    python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/forwarded-*-?.json")):
    run = json.load(open(path))
    lat = run["round_trip_ms"]
    print(f"{path.rsplit('/', 1)[1]:26} p50 {lat['p50']:6.2f}  p99 {lat['p99']:6.2f}  p99.9 {lat['p99_9']:7.2f} ms"
          f"  CPU/action {run['server_cpu_seconds'] / run['actions'] * 1e6:6.1f} µs  actions {run['actions']}")
PY
}

"${MODE}_runs"
