#!/usr/bin/env bash
# Runs botd's test suite on 64-bit and 32-bit ARM under qemu-user (Debian's
# qemu-user-static), and checks that `botd sim` of every example mission
# gives the same trace there as on the host.
#
#   deploy/arm-test.sh                    # arm64, armv7 and armv6, every package
#   deploy/arm-test.sh arm64              # one architecture
#   ARM_TEST_CORE="armv6" deploy/arm-test.sh       # only the core packages (below) on these, for a quick run
#   ARM_TEST_PHASE=build deploy/arm-test.sh         # only build the test binaries (into ARM_TEST_OUT)
#   ARM_TEST_PHASE=run deploy/arm-test.sh           # only run what a build phase left in ARM_TEST_OUT
#
# Each package's test binary is cross-compiled once (go test -c) and run
# in its package directory under qemu-ARCH-static, with -test.short and
# without the race detector (it is amd64/arm64-only and CI runs it on the
# host). Builds go one package at a time (ARM_TEST_BUILD_P, default 2,
# is go's -p for each); the runs of all architectures share one pool,
# ARM_TEST_JOBS at a time (default 4 on 2 cores: the daemon tests mostly
# wait on real time; the three architectures in full kept the machine 1.1
# cores busy). Logs are kept in ARM_TEST_OUT
# (default: a temporary directory, removed when everything passed), one
# per package and architecture.
#
# What does not run under emulation, and why, is the EXCLUDE table below.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(arm64 armv7 armv6)
jobs=${ARM_TEST_JOBS:-4}
build_p=${ARM_TEST_BUILD_P:-2}
if [ -n "${ARM_TEST_OUT-}" ]; then
  out=$ARM_TEST_OUT
else
  # A directory of its own (about 1 GiB for the three architectures):
  # removed when the run passes, kept for its logs when it fails.
  out=$(mktemp -d)
  trap 'rc=$?; if [ $rc = 0 ]; then rm -rf "$out"; else echo "logs kept in $out"; fi' EXIT
fi
mkdir -p "$out"

# The core packages, whose code is most word-size sensitive (the engine and
# its unsafe fast path, mission decoding, drivers, the command intake, the
# runner): ARM_TEST_CORE="ARCH..." runs only these on those architectures,
# for a quicker run by hand. CI runs every package on all three.
core="./bt ./bt/fsm ./missions ./missions/hint ./missions/runner ./drivers ./drivers/sim ./drivers/sim/multicopter ./telemetry ./telemetry/protocol"

# EXCLUDE: package -> -test.skip pattern, and why.
declare -A skip
# The cmd/botd tests that re-execute the test binary as a child daemon
# run it under the same emulator (BOTD_TEST_EXEC below: exec of an ARM
# binary without binfmt_misc fails with "exec format error"), so they run.
# TestDaemonUAVSimSurvey flies the simulated multicopter in real time:
# emulated, the daemon's ticks overrun (jitter up to 0.4 s measured) and
# the late position trips the geofence failsafe now and then; the flight
# logic it drives runs in the drivers/sim/multicopter and UAV tests.
# TestCluster*: a fleet of 30 robots on three broker nodes (the brokers
# are the machine's own amd64 ones); emulated, the fleet would measure
# qemu, and the failover logic is architecture-independent Go.
# TestMetricsExposition compares process_start_time_seconds with the test's
# own start: qemu-user fakes /proc/self/stat's start time (70 s off here).
skip[./cmd/botd]='^(TestDaemonUAVSimSurvey|TestCluster.*|TestMetricsExposition)$'

# Packages whose tests stay on the host: cmd/botctl/web's tests drive
# the dashboard in a headless chromium (a host binary, so an ARM run
# tests the host's browser, at a minute per architecture); the
# dashboard's Go side is served by botctl, tested in ./cmd/botctl.
host_only='/cmd/botctl/web$'

pkg_list() {
  local arch=$1
  if [[ " ${ARM_TEST_CORE-} " == *" $arch "* ]]; then
    go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $core
  else
    go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -Ev "$host_only"
  fi
}

goenv() {
  case $1 in
    arm64) echo "GOARCH=arm64" ;;
    armv7) echo "GOARCH=arm GOARM=7" ;;
    armv6) echo "GOARCH=arm GOARM=6" ;;
    *) echo "arm-test.sh: unknown architecture $1 (arm64, armv7, armv6)" >&2; return 1 ;;
  esac
}

qemu_for() {
  case $1 in
    arm64) echo qemu-aarch64-static ;;
    armv7) echo "qemu-arm-static -cpu cortex-a7" ;;
    armv6) echo "qemu-arm-static -cpu arm1176" ;;   # the Pi Zero's and Pi 1's core
  esac
}

module=$(go list -m)
rel() { local p=${1#"$module"}; echo ".${p}"; }

build() {
  local arch=$1 start=$SECONDS
  mkdir -p "$out/$arch"
  echo "-- $arch: building test binaries"
  for pkg in $(pkg_list "$arch"); do
    local name=${pkg#"$module"/}; name=${name//\//_}; [ "$pkg" = "$module" ] && name=root
    env $(goenv "$arch") CGO_ENABLED=0 go test -c -p "$build_p" -o "$out/$arch/$name.test" "$pkg"
    echo "$(rel "$pkg") $name ${skip[$(rel "$pkg")]:--}" >> "$out/$arch/list"
  done
  echo "-- $arch: built in $((SECONDS - start)) s"
}

# run_one ARCH DIR NAME [SKIP]: runs one package's test binary in its directory.
run_one() {
  local arch=$1 dir=$2 name=$3 skip=${4:--} qemu
  qemu=$(qemu_for "$arch")
  local args=(-test.short -test.count=1 -test.timeout=8m)
  [ "$skip" = - ] || args+=(-test.skip "$skip")
  local t0=$SECONDS
  if (cd "$root/$dir" && BOTD_TEST_EXEC="$qemu" $qemu "$out/$arch/$name.test" "${args[@]}") > "$out/$arch/$name.log" 2>&1; then
    echo "ok   $arch $dir $((SECONDS - t0))s"
  else
    echo "FAIL $arch $dir $((SECONDS - t0))s (log: $out/$arch/$name.log)"
    tail -n 40 "$out/$arch/$name.log" | sed 's/^/    /'
    return 1
  fi
}
export -f run_one qemu_for
export out root

# run ARCH...: runs every built test binary of the architectures, JOBS at
# a time, the slowest first (cmd/botd's daemons, about 200 s under qemu,
# wait on real time more than they compute, so the pool stays busy
# meanwhile; then the packages of 30-60 s, then the rest).
run() {
  local start=$SECONDS
  echo "-- running ${*} ($jobs at a time)"
  if ! for arch in "$@"; do awk -v a="$arch" '{
      w = 3
      if ($1 == "./cmd/botd") w = 0
      else if ($1 == "./cmd/botctl" || $1 == "./telemetry" || $1 == "./drivers/mavlink") w = 1
      else if ($1 == "./missions/btcpp" || $1 == "./telemetry/broker") w = 2
      print w, a, $1, $2, $3
    }' "$out/$arch/list"; done |
    sort -k1,1n -s | cut -d' ' -f2- |
    xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ ; then
    failed=1
  fi
  echo "-- ran ${*} in $((SECONDS - start)) s"
}

# sim_args MISSION: the arguments README.md runs the example with.
sim_args() {
  case $(basename "$1") in
    swarm.*) echo "-agents 6" ;;                                # six robots sharing one tree
    survey.*) echo "-hardware configs/uav-sim-hw.yaml" ;;       # a multicopter: no vehicle link in sim, so a short FAILURE trace
  esac
}

# Traces: botd sim of every example mission on ARM is the host's, byte for
# byte (the trace, the messages and the summary line). Floating-point
# results may differ across architectures only where Go allows it (fused
# multiply-add on arm64): a difference here is a bug to look at.
traces() {
  local arch=$1 qemu bad=0
  qemu=$(qemu_for "$arch")
  echo "-- $arch: botd sim traces against the host's"
  mkdir -p "$out/trace"
  for m in configs/missions/*; do
    local base; base=$(basename "$m")
    # shellcheck disable=SC2046
    $qemu "$out/bin/botd-$arch" sim $(sim_args "$m") -trace - "$m" > "$out/trace/$arch-$base" 2>&1 || true
    if ! cmp -s "$out/trace/host-$base" "$out/trace/$arch-$base"; then
      echo "FAIL $arch trace of $m differs from the host's:"
      diff "$out/trace/host-$base" "$out/trace/$arch-$base" | head -n 20 | cut -c1-300 | sed 's/^/    /'
      bad=1
    else
      echo "ok   $arch trace of $m ($(wc -l < "$out/trace/host-$base") lines: $(tail -n 1 "$out/trace/host-$base"))"
    fi
  done
  [ $bad = 0 ] || failed=1
}

rm -rf "$out/trace"
mkdir -p "$out/trace"
failed=0
for arch in "${archs[@]}"; do
  goenv "$arch" >/dev/null
  command -v "$(qemu_for "$arch" | cut -d' ' -f1)" >/dev/null || {
    echo "arm-test.sh: $(qemu_for "$arch" | cut -d' ' -f1) missing (apt-get install qemu-user-static)" >&2; exit 1; }
done
t0=$SECONDS
phase=${ARM_TEST_PHASE:-all}
case $phase in all|build|run) ;; *) echo "arm-test.sh: ARM_TEST_PHASE is all, build or run, not $phase" >&2; exit 1 ;; esac
if [ "$phase" != run ]; then
  for arch in "${archs[@]}"; do
    rm -f "$out/$arch/list"
    build "$arch"
  done
  # The sim binaries of the traces, built here too.
  mkdir -p "$out/bin"
  CGO_ENABLED=0 go build -o "$out/bin/botd-host" ./cmd/botd
  for arch in "${archs[@]}"; do
    env $(goenv "$arch") CGO_ENABLED=0 go build -o "$out/bin/botd-$arch" ./cmd/botd
  done
fi
if [ "$phase" = build ]; then
  echo "== ${archs[*]}: built in $((SECONDS - t0)) s (ARM_TEST_PHASE=run runs them)"
  exit 0
fi
for arch in "${archs[@]}"; do
  [ -s "$out/$arch/list" ] && [ -x "$out/bin/botd-$arch" ] || { echo "arm-test.sh: nothing built for $arch in $out (run the build phase first)" >&2; exit 1; }
done
run "${archs[@]}"
# The host's traces first, then the architectures' side by side (each is
# one emulator at a time).
for m in configs/missions/*; do
  # shellcheck disable=SC2046
  "$out/bin/botd-host" sim $(sim_args "$m") -trace - "$m" > "$out/trace/host-$(basename "$m")" 2>&1 || true
done
for arch in "${archs[@]}"; do
  ( failed=0; traces "$arch" > "$out/trace-$arch.log" 2>&1; exit $failed ) &
done
for arch in "${archs[@]}"; do
  wait -n || failed=1
done
for arch in "${archs[@]}"; do
  cat "$out/trace-$arch.log"
done
echo "== ${archs[*]}: $((SECONDS - t0)) s in all"
[ $failed = 0 ] || { echo "arm-test.sh: failures (logs in $out)"; exit 1; }
echo "arm-test.sh: passed (${archs[*]})"
