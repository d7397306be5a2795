#!/usr/bin/env bash
# Measures fleets of simulated robots, one row per fleet size, as
# docs/FLEET.md reports them:
#
#   tools/fleetperf/table.sh 100 300 1000
#
# For each size: a broker, `botd fleet -n N` against it (in PROCS
# processes, the robots numbered on from one to the next), fleetperf as the
# ground station following every robot, then `botctl estop --all` timed by
# each robot's reply. Each process is stopped by its pid at the end. The
# robots' state directories are botd fleet's default (in memory, /dev/shm).
#
#   BROKER    mosquitto (default): Debian's, fresh on a free loopback port
#             (temporary config, no persistence); embedded: the fleet's own
#             embedded broker (PROCS must be 1; its CPU is the generator's)
#   DURATION  measurement length (default 30s)
#   WARMUP    how long fleetperf follows the fleet before it measures
#             (default 10s: a wildcard subscription brings every robot's
#             retained messages at once, about 30 kB a robot)
#   WILDCARD  1: fleetperf follows the fleet through one wildcard
#             subscription (ground.WatchAll) instead of a Watch per robot;
#             both: one measurement each way, back to back on the same fleet
#   PROCS     fleet processes (default 1)
#   FLEET_GOMAXPROCS  GOMAXPROCS of each fleet process (default: Go's, the
#             number of CPUs)
#   PROFILE   a directory: CPU profiles of the fleet (fleet-N-P.prof, over its
#             whole run) and of the ground client (ground-N-MODE.prof, over
#             the measurement) are kept there, with the binaries
set -euo pipefail
cd "$(dirname "$0")/../.."
broker=${BROKER:-mosquitto}
procs=${PROCS:-1}
case "$broker" in
  mosquitto) ;;
  embedded) [ "$procs" = 1 ] || { echo "BROKER=embedded runs one fleet process (PROCS=1)" >&2; exit 2; } ;;
  *) echo "BROKER=$broker: want mosquitto or embedded" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/botd" ./cmd/botd
go build -o "$tmp/botctl" ./cmd/botctl
go build -o "$tmp/fleetperf" ./tools/fleetperf
if [ -n "${PROFILE:-}" ]; then
  mkdir -p "$PROFILE"
  cp "$tmp/botd" "$tmp/fleetperf" "$PROFILE/"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="tcp://127.0.0.1:$port"
cat > "$tmp/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
set_tcp_nodelay true
max_connections -1
CONF
case "${WILDCARD:-0}" in
  0) modes=(watch) ;;
  1) modes=(wildcard) ;;
  both) modes=(watch wildcard) ;;
  *) echo "WILDCARD=$WILDCARD: want 0, 1 or both" >&2; exit 2 ;;
esac
for n in "$@"; do
  pids=()
  mosq=0
  if [ "$broker" = mosquitto ]; then
    mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto-$n.log" 2>&1 &
    mosq=$!
    pids+=("$mosq")
    sleep 0.5
  fi
  gens=()
  per=$(( (n + procs - 1) / procs ))
  first=1
  for ((p = 0; p < procs && first <= n; p++)); do
    k=$(( n - first + 1 < per ? n - first + 1 : per ))
    where=(-broker "$url")
    [ "$broker" = embedded ] && where=(-listen "127.0.0.1:$port")
    prof=()
    [ -n "${PROFILE:-}" ] && prof=(-cpuprofile "$PROFILE/fleet-$n-$p.prof")
    GOMAXPROCS=${FLEET_GOMAXPROCS:-$(nproc)} "$tmp/botd" fleet -n "$k" -first "$first" "${where[@]}" -report 10s "${prof[@]}" >"$tmp/fleet-$n-$p.log" 2>&1 &
    gens+=($!)
    pids+=($!)
    first=$(( first + k ))
  done
  for mode in "${modes[@]}"; do
    wildcard=()
    [ "$mode" = wildcard ] && wildcard=(-wildcard)
    gprof=()
    [ -n "${PROFILE:-}" ] && gprof=(-cpuprofile "$PROFILE/ground-$n-$mode.prof")
    echo "== $n robots: $broker broker, $procs fleet process(es), fleetperf: $mode"
    "$tmp/fleetperf" -broker "$url" -robots "$n" -duration "${DURATION:-30s}" -warmup "${WARMUP:-10s}" -broker-pid "$mosq" -gen-pid "$(IFS=,; echo "${gens[*]}")" "${wildcard[@]}" "${gprof[@]}" || true
  done
  # E-stop the whole fleet; each robot's reply time from the botctl's
  # publish of all of them.
  "$tmp/botctl" estop --all --broker "$url" --timeout 30s --json >"$tmp/estop-$n.json" 2>"$tmp/estop-$n.err" || true
  python3 - "$tmp/estop-$n.json" "$n" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"estop --all: no JSON ({e})"); sys.exit(0)
rows = d.get("robots", [])
lat = sorted(r["latency_ms"] for r in rows if r.get("code") == "ESTOP" and r.get("latency_ms") is not None)
q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] if lat else float("nan")
print(f"estop --all: {len(rows)} robots sent to, {len(lat)} acknowledged ESTOP (want {sys.argv[2]}); "
      f"p50 {q(0.5):.0f} ms, p99 {q(0.99):.0f} ms, last {lat[-1] if lat else float('nan'):.0f} ms")
PY
  for g in "${gens[@]}"; do kill -INT "$g" 2>/dev/null || true; done
  for g in "${gens[@]}"; do wait "$g" || true; done
  for ((p = 0; p < ${#gens[@]}; p++)); do echo "-- botd fleet process $p:"; tail -n 4 "$tmp/fleet-$n-$p.log"; done
  if [ "$mosq" != 0 ]; then kill "$mosq"; wait "$mosq" || true; fi
done
