# shellcheck shell=bash
# Sourced by the benchmark scripts (bench/run.sh, bench/profile.sh, bench/instructions.sh,
# bench/pgo.sh, bench/cluster.sh, bench/ab-open.sh): what they share, in one place.

# Our server's flags that lift every limit a load generator would hit: the per-connection message
# rate, the per-address connection and room caps, and the server-wide caps. One generator opens
# thousands of rooms from a handful of addresses and sends as fast as the server answers, so that
# a benchmark measures the server's work, not its defences (the defaults: the README's
# "Settings", `aeroplane-server --help`, docs/protocol.md §9). Put it after the other flags:
#     "$server" --listen ... "${UNLIMITED[@]}"
# shellcheck disable=SC2034 # used by the scripts that source this file
UNLIMITED=(
    --ws-rate-per-sec 1000000 --ws-burst 1000000
    --max-connections-per-address 1000000 --rooms-per-address-per-minute 1000000
    --max-connections 1000000 --max-http-connections-per-address 1000000
    --max-rooms 1000000 --max-waiting-rooms 1000000
)

# The loopback addresses a load generator's connections come from: one address has too few
# ports for the connections that thousands of rooms open and close in a run.
# shellcheck disable=SC2034 # used by the scripts that source this file
LOOPBACK_SOURCES=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7,127.0.0.8

# wait_listening PORT SECONDS: succeeds as soon as something accepts a TCP connection on
# 127.0.0.1:PORT, fails once SECONDS have gone by without (the caller says what did not start).
wait_listening() {
    local port="$1" until=$((SECONDS + $2))
    while ((SECONDS < until)); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# serve_pinned CORE KIND BINARY PORT LOG [DATA]: starts BINARY in the background, pinned to CORE,
# listening on 127.0.0.1:PORT, its output to LOG, as the load benchmarks run it: KIND `aeroplane`
# is our server, with its limits lifted and its data directory DATA; `echo` and `broadcast` are
# the bench-echo yardstick. `$!` is its pid afterwards.
serve_pinned() {
    local core="$1" kind="$2" binary="$3" port="$4" log="$5" data="${6:-}"
    if [[ "$kind" == aeroplane ]]; then
        taskset -c "$core" "$binary" --listen "127.0.0.1:$port" --data-dir "$data" \
            --log-level warn "${UNLIMITED[@]}" >"$log" 2>&1 &
    else
        taskset -c "$core" "$binary" --listen "127.0.0.1:$port" >"$log" 2>&1 &
    fi
}
