#!/usr/bin/env bash
# Measures fleets of simulated robots through Debian's mosquitto, one row
# per fleet size, as docs/FLEET.md reports them:
#
#   tools/fleetperf/table.sh 100 300 1000
#
# For each size: a fresh mosquitto on a free loopback port (temporary
# config, no persistence), `botd fleet -n N` against it, and fleetperf as
# the ground station following every robot. Each process is stopped by its
# pid at the end. DURATION (default 30s) sets the measurement length.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/botd" ./cmd/botd
go build -o "$tmp/fleetperf" ./tools/fleetperf
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$tmp/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
set_tcp_nodelay true
max_connections -1
CONF
for n in "$@"; do
  mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto-$n.log" 2>&1 &
  mosq=$!
  sleep 0.5
  "$tmp/botd" fleet -n "$n" -broker "tcp://127.0.0.1:$port" -state-dir "$tmp/state-$n" -report 10s >"$tmp/fleet-$n.log" 2>&1 &
  gen=$!
  "$tmp/fleetperf" -broker "tcp://127.0.0.1:$port" -robots "$n" -duration "${DURATION:-30s}" -broker-pid "$mosq" -gen-pid "$gen" || true
  kill -INT "$gen"; wait "$gen" || true
  echo "-- botd fleet -n $n:"; cat "$tmp/fleet-$n.log"
  kill "$mosq"; wait "$mosq" || true
done
