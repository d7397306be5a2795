#!/usr/bin/env bash
# Measures fleets of simulated robots, one row per fleet size, as
# docs/FLEET.md reports them:
#
#   tools/fleetperf/table.sh 100 300 1000
#   BROKER=rabbitmq WILDCARD=1 tools/fleetperf/table.sh 100 300
#
# For each size: a broker, `botd fleet -n N` against it (in PROCS
# processes, the robots numbered on from one to the next), fleetperf as the
# ground station following every robot, then `botctl estop --all` timed by
# each robot's reply. Each process is stopped by its pid at the end. The
# robots' state directories are botd fleet's default (in memory, /dev/shm).
#
#   BROKER    mosquitto (default): Debian's, fresh on a free loopback port
#             (temporary config, no persistence); embedded: the fleet's own
#             embedded broker (PROCS must be 1; its CPU is the generator's);
#             rabbitmq: three RabbitMQ nodes clustered (Debian's
#             rabbitmq-server, deploy/rabbitmq's config on loopback, as
#             cmd/botd's TestClusterRabbitMQ runs them), robots and
#             fleetperf given every node, broker.kind rabbitmq; aedes: three
#             aedes brokers sharing a redis (deploy/aedes/aedes.config.js,
#             aedes-cli from cmd/botd/testdata/aedes: npm ci there, Debian's
#             redis-server), as TestClusterAedes runs them. A cluster is
#             started fresh for each size; its CPU and RSS are its nodes'
#             (and redis') summed.
#   ROBOT     default: every robot is the default daemon's (configs/sim.yaml's
#             rover, the demo patrol); light: the same rover with its
#             simulated sensors read at 5 Hz (tools/fleetperf/sim-light.yaml:
#             the same mission, telemetry and connections for less of the
#             generator's CPU, so that a generator on the broker's machine
#             does not starve; see docs/FLEET.md)
#   DURATION  measurement length (default 30s)
#   WARMUP    how long fleetperf follows the fleet before it measures
#             (default 10s: a wildcard subscription brings every robot's
#             retained messages at once, about 30 kB a robot)
#   WAIT      how long fleetperf waits for every robot to be online
#             (default 2m)
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
aedes_cli=cmd/botd/testdata/aedes/node_modules/aedes-cli/bin/aedes
case "$broker" in
  mosquitto) ;;
  embedded) [ "$procs" = 1 ] || { echo "BROKER=embedded runs one fleet process (PROCS=1)" >&2; exit 2; } ;;
  rabbitmq) [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || { echo "BROKER=rabbitmq: install rabbitmq-server" >&2; exit 2; } ;;
  aedes) [ -f "$aedes_cli" ] && command -v redis-server >/dev/null || { echo "BROKER=aedes: install redis-server and run npm ci in cmd/botd/testdata/aedes" >&2; exit 2; } ;;
  *) echo "BROKER=$broker: want mosquitto, embedded, rabbitmq or aedes" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
pids=()
groups=() # process groups of a cluster's nodes (each node's start script and VM)
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
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
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
listening() { # PORT SECONDS: wait until something listens on 127.0.0.1:PORT
  for ((i = 0; i < $2 * 10; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1 after $2 s" >&2; return 1
}
# routes URL1 URL2: a message published on one node reaches a subscriber
# on the other (the nodes are one cluster), within 3 minutes.
routes() {
  local h1=${1#tcp://} h2=${2#tcp://}
  local sub
  for ((i = 0; i < 60; i++)); do
    timeout 3 mosquitto_sub -h 127.0.0.1 -p "${h2##*:}" -t fleetperf/up -C 1 >/dev/null 2>&1 &
    sub=$!
    sleep 0.5
    mosquitto_pub -h 127.0.0.1 -p "${h1##*:}" -t fleetperf/up -m x -q 1 >/dev/null 2>&1 || true
    wait "$sub" && return 0
  done
  echo "$1 and $2 do not route to each other" >&2; return 1
}
# start_cluster N: three nodes of $broker for the N-robot row; sets urls
# and groups.
start_cluster() {
  local d="$tmp/$broker-$1" urls_=() started=$SECONDS
  mkdir -p "$d"
  if [ "$broker" = rabbitmq ]; then
    printf 'botd-fleetperf-%s-%s' "$$" "$1" >"$d/.erlang.cookie"; chmod 400 "$d/.erlang.cookie"
    local epmd_port; epmd_port=$(freeport)
    setsid epmd -port "$epmd_port" >"$d/epmd.log" 2>&1 & groups+=($!)
    local names=() ports=()
    for i in 1 2 3; do names+=("fleetperf$i-$$-$1@localhost"); ports+=("$(freeport)"); done
    for i in 0 1 2; do
      local nd="$d/n$i"; mkdir -p "$nd"
      sed -e "s/^mqtt.listeners.tcp.default = 1883$/mqtt.listeners.tcp.default = 127.0.0.1:${ports[$i]}/" \
          -e 's/^mqtt.allow_anonymous = false$/mqtt.allow_anonymous = true\nloopback_users = none/' \
          -e "s/^cluster_formation.classic_config.nodes.1 = .*/cluster_formation.classic_config.nodes.1 = ${names[0]}/" \
          -e "s/^cluster_formation.classic_config.nodes.2 = .*/cluster_formation.classic_config.nodes.2 = ${names[1]}/" \
          -e "s/^cluster_formation.classic_config.nodes.3 = .*/cluster_formation.classic_config.nodes.3 = ${names[2]}/" \
          deploy/rabbitmq/rabbitmq.conf >"$nd/rabbitmq.conf"
      printf 'log.console = false\nlog.file.level = warning\n' >>"$nd/rabbitmq.conf"
      cp deploy/rabbitmq/enabled_plugins "$nd/enabled_plugins"
      HOME="$d" RABBITMQ_NODENAME="${names[$i]}" ERL_EPMD_PORT="$epmd_port" RABBITMQ_DIST_PORT="$(freeport)" \
        RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$(freeport)" RABBITMQ_CONFIG_FILE="$nd/rabbitmq" \
        RABBITMQ_ENABLED_PLUGINS_FILE="$nd/enabled_plugins" RABBITMQ_MNESIA_BASE="$nd/mnesia" RABBITMQ_LOG_BASE="$nd/log" \
        RABBITMQ_PID_FILE="$nd/pid" RABBITMQ_PLUGINS_EXPAND_DIR="$nd/plugins" \
        setsid /usr/lib/rabbitmq/bin/rabbitmq-server >"$nd/out.log" 2>&1 &
      groups+=($!)
      urls_+=("tcp://127.0.0.1:${ports[$i]}")
      # The first node up alone, the others join it.
      [ "$i" = 0 ] && listening "${ports[0]}" 180
    done
    listening "${ports[1]}" 180; listening "${ports[2]}" 180
  else
    local rport; rport=$(freeport)
    setsid redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no >"$d/redis.log" 2>&1 & groups+=($!)
    listening "$rport" 30
    local config; config=$(realpath deploy/aedes/aedes.config.js)
    for i in 1 2 3; do
      local p; p=$(freeport)
      AEDES_HOST=127.0.0.1 AEDES_PORT="$p" AEDES_BROKER_ID="aedes-$i" AEDES_REDIS_HOST=127.0.0.1 AEDES_REDIS_PORT="$rport" \
        setsid node "$aedes_cli" start --config "$config" >"$d/aedes-$i.log" 2>&1 &
      groups+=($!)
      urls_+=("tcp://127.0.0.1:$p")
      listening "$p" 60
    done
  fi
  routes "${urls_[0]}" "${urls_[1]}" && routes "${urls_[1]}" "${urls_[2]}" && routes "${urls_[2]}" "${urls_[0]}"
  url=$(IFS=,; echo "${urls_[*]}")
  echo "== $broker cluster of 3 up in $((SECONDS - started)) s: $url"
}
# cluster_pids: every process of the cluster's groups, comma-separated.
cluster_pids() {
  local out=()
  for g in "${groups[@]}"; do out+=($(pgrep -g "$g" || true)); done
  (IFS=,; echo "${out[*]}")
}
stop_cluster() {
  for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  sleep 1
  for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
  for g in "${groups[@]}"; do wait "$g" 2>/dev/null || true; done
  groups=()
}
port=$(freeport)
url="tcp://127.0.0.1:$port"
kindflags=()
fleetconfig=()
hardware=configs/sim.yaml
case "${ROBOT:-default}" in
  default) ;;
  light) hardware=tools/fleetperf/sim-light.yaml ;;
  *) echo "ROBOT=$ROBOT: want default or light" >&2; exit 2 ;;
esac
kind=""
case "$broker" in
  rabbitmq|aedes) kind="broker: {kind: $broker}" ;;
esac
[ "$broker" = rabbitmq ] && kindflags=(--broker-kind rabbitmq)
if [ -n "$kind" ] || [ "$hardware" != configs/sim.yaml ]; then
  # The default robot (configs/default.yaml) of the cluster's broker kind,
  # on the chosen hardware.
  cat >"$tmp/fleet.yaml" <<YAML
robot: rover-1
hardware: $(realpath "$hardware")
mission: $(realpath configs/missions/patrol.json)
$kind
failsafe: {require_gcs: false}
YAML
  fleetconfig=(-config "$tmp/fleet.yaml")
fi
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
echo "== $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "$@"; do
  pids=()
  mosq=0
  if [ "$broker" = mosquitto ]; then
    mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto-$n.log" 2>&1 &
    mosq=$!
    pids+=("$mosq")
    sleep 0.5
  fi
  case "$broker" in rabbitmq|aedes) start_cluster "$n" ;; esac
  gens=()
  per=$(( (n + procs - 1) / procs ))
  first=1
  for ((p = 0; p < procs && first <= n; p++)); do
    k=$(( n - first + 1 < per ? n - first + 1 : per ))
    where=(-broker "$url")
    [ "$broker" = embedded ] && where=(-listen "127.0.0.1:$port")
    prof=()
    [ -n "${PROFILE:-}" ] && prof=(-cpuprofile "$PROFILE/fleet-$n-$p.prof")
    GOMAXPROCS=${FLEET_GOMAXPROCS:-$(nproc)} "$tmp/botd" fleet -n "$k" -first "$first" "${fleetconfig[@]}" "${where[@]}" -report 10s "${prof[@]}" >"$tmp/fleet-$n-$p.log" 2>&1 &
    gens+=($!)
    pids+=($!)
    first=$(( first + k ))
  done
  for mode in "${modes[@]}"; do
    wildcard=()
    [ "$mode" = wildcard ] && wildcard=(-wildcard)
    gprof=()
    [ -n "${PROFILE:-}" ] && gprof=(-cpuprofile "$PROFILE/ground-$n-$mode.prof")
    echo "== $n robots (${ROBOT:-default}): $broker broker, $procs fleet process(es), fleetperf: $mode"
    bpids=$mosq
    case "$broker" in rabbitmq|aedes) bpids=$(cluster_pids) ;; esac
    kind=()
    [ "$broker" = rabbitmq ] && kind=(-broker-kind rabbitmq)
    "$tmp/fleetperf" -broker "$url" "${kind[@]}" -robots "$n" -duration "${DURATION:-30s}" -warmup "${WARMUP:-10s}" -wait "${WAIT:-2m}" -broker-pid "$bpids" -gen-pid "$(IFS=,; echo "${gens[*]}")" "${wildcard[@]}" "${gprof[@]}" || true
  done
  # E-stop the whole fleet; each robot's reply time from the botctl's
  # publish of all of them.
  "$tmp/botctl" estop --all --broker "$url" "${kindflags[@]}" --timeout 30s --json >"$tmp/estop-$n.json" 2>"$tmp/estop-$n.err" || true
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
  case "$broker" in rabbitmq|aedes) stop_cluster ;; esac
done
