#!/usr/bin/env bash
# Measures botd's footprint where a Pi feels it, for docs/PERFORMANCE.md:
#
#  1. the stripped release binaries' sizes per architecture (built as
#     deploy/release.sh builds them, into a temporary directory);
#  2. the modules linked into botd (go version -m) and what each costs in
#     the binary: code and data by module, from the symbol sizes of an
#     unstripped build (go tool nm -size), for amd64 and armv6;
#  3. the default daemon (botd with no config: the simulated rover, the
#     embedded broker, the demo patrol at 20 Hz) on this machine: the time
#     from its start to ONLINE (the ts of its retained connection message)
#     and to its first tick (from the first status message that carries a
#     tick: tick_ts less the ticks before it, which run on a fixed
#     schedule), its CPU over SECONDS after a warm-up, and its resident
#     memory (RSS, and how much of it is the executable's pages and how
#     much anonymous memory) at the end;
#  4. the resident memory of the same daemon under qemu-user (arm64 and
#     armv6), where qemu-user-static is installed: an upper bound that
#     counts the emulator's own memory, not a Pi's figure. Times and CPU
#     under emulation mean nothing and are not measured.
#
#   deploy/footprint.sh [SECONDS]    # default 30 s of running per daemon
#   deploy/footprint.sh SECONDS BINARY...
#
# With binaries (botd built at two commits, say), only part 3 runs, for
# each binary in turn and then again in the same order, so that a before
# and an after see the same load on a shared machine.
#
# Besides CPU and memory, each daemon's line gives its threads and their
# context switches a second (voluntary and involuntary, from
# /proc/PID/task/*/status, summed over the threads alive at both ends):
# the daemon's wake-ups, which cost it more CPU than the work it does.
#
# Needs: go, readelf, awk, bc, mosquitto_sub (for the start-up times; the
# rest is measured without it), python3 (to pick a free port).
set -euo pipefail
secs=${1:-30}
shift || true
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
cd "$(dirname "$0")/.."
warmup=5
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "go: $(go version | cut -d' ' -f3-)  host: $(uname -m), $(nproc) cores  load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ${#bins[@]} -eq 0 ]; then
  echo
  echo "== stripped release binaries, bytes (deploy/release.sh: -trimpath -s -w, CGO_ENABLED=0)"
  deploy/release.sh "$tmp/rel" amd64 arm64 armv7 armv6 >/dev/null
  printf '%-8s %12s %12s\n' arch botd botctl
  for a in amd64 arm64 armv7 armv6; do
    printf '%-8s %12s %12s\n' "$a" "$(stat -c %s "$tmp/rel/botd-linux-$a")" "$(stat -c %s "$tmp/rel/botctl-linux-$a")"
  done

  echo
  echo "== modules linked into botd (go version -m)"
  go version -m "$tmp/rel/botd-linux-amd64" | awk '$1 == "dep" {print "  " $2, $3}'

  # bymodule BINARY: KiB of code, read-only and initialised data by module,
  # from go tool nm -size. Symbols from .bss on (.bss, .noptrbss) take no
  # room in the file (the FIPS DRBG's 32 MiB buffer is one): left out by
  # address. What no symbol names (the function tables' headers, section
  # padding, the ELF headers) is the rest of the file.
  bymodule() {
    local bin=$1 bss
    bss=$(readelf -SW "$bin" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".bss" {print $3}')
    go tool nm -size -sort size -type "$bin" | awk -v bss="$bss" '
      # addresses as zero-padded 16-digit hex, to compare as strings
      function pad(a) { sub(/^0+/, "", a); a = sprintf("%16s", a); gsub(/ /, "0", a); return tolower(a) }
      $2 ~ /^[0-9]+$/ && $3 ~ /^[TtRrDd]$/ && pad($1) < pad(bss) {
        name = $4
        for (i = 5; i <= NF; i++) name = name " " $i
        # the package path: up to the last "/" segment, then to its first "."
        n = name; sub(/^type:\*?/, "", n); sub(/^go:(itab|link)\./, "", n); sub(/^\.eq\./, "", n)
        slash = match(n, /\/[^\/]*$/); head = slash ? substr(n, 1, slash) : ""; tail = slash ? substr(n, slash + 1) : n
        sub(/\..*/, "", tail); pkg = head tail
        # group by module: github.com/x/y, golang.org/x/y, gopkg.in/y, else the first element
        split(pkg, p, "/")
        if (p[1] ~ /\./ && (p[1] == "github.com" || p[1] == "golang.org" || p[1] == "go.yaml.in" || p[1] == "gitlab.com" || p[1] == "gobot.io" || p[1] == "periph.io")) mod = p[1] "/" p[2] "/" p[3]
        else if (p[1] ~ /\./) mod = p[1] "/" p[2]
        else if (p[1] == "main") mod = "github.com/botd-project/botd"
        else if (p[1] == "go:func") mod = "runtime metadata (go:func.*)"
        else if (p[1] == "vendor") mod = "std: vendor/" p[2] "/" p[3] "/" p[4]
        else mod = "std: " p[1]
        sub(/\/v[0-9]+$/, "", mod); gsub(/%2e/, ".", mod)
        sum[mod] += $2; total += $2
      }
      END {
        for (m in sum) printf "%8.0f  %s\n", sum[m] / 1024, m
        printf "%8.0f  (all symbols)\n", total / 1024
      }' | sort -rn | head -n 31
  }

  echo
  echo "== what each module costs in botd, KiB of code and data (go tool nm -size of an unstripped build)"
  # shellcheck source=deploy/buildflags.sh
  . deploy/buildflags.sh
  botd_build_flags
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build "${BOTD_FLAGS[@]}" -o "$tmp/botd-amd64-syms" ./cmd/botd
  CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=6 go build "${BOTD_FLAGS[@]}" -o "$tmp/botd-armv6-syms" ./cmd/botd
  paste <(echo "-- amd64"; bymodule "$tmp/botd-amd64-syms") <(echo "-- armv6"; bymodule "$tmp/botd-armv6-syms") |
    awk -F'\t' '{printf "%-58s %s\n", $1, $2}'
fi

freeport() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ms() { date -u -d "$1" +%s%3N; }
# cputicks PID: user+system CPU of the process, in clock ticks
cputicks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
# ctxsw PID: context switches of the process's live threads so far
ctxsw() {
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '$1 ~ /ctxt_switches:$/ {n += $2} END {print n + 0}'
}
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
mib() { printf '%.1f' "$(echo "$1 / 1024" | bc -l)"; }

# daemon LABEL CMD...: runs the default daemon for warm-up + SECONDS and
# reports what it can; with TIMES=1 also start-up times and CPU.
daemon() {
  local label=$1; shift
  local dir port pid t0 online="" first="" cpu=""
  dir=$(mktemp -d -p "$tmp")
  port=$(freeport)
  t0=$(date +%s%3N)
  "$@" -listen "127.0.0.1:$port" -state-dir "$dir" > "$dir/log" 2>&1 &
  pid=$!
  pids+=("$pid")
  if [ "${TIMES:-0}" = 1 ] && command -v mosquitto_sub >/dev/null; then
    local conn="" status="" i
    # The broker is the daemon's: wait for it to listen.
    for i in $(seq 500); do
      conn=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t botd/v1/rover-1/connection -C 1 -W 5 2>/dev/null) && break
      sleep 0.01
    done
    # The first status message with a tick: tick_ts of tick N, which ran
    # N-1 periods (of 50 ms at 20 Hz) after the first.
    status=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t botd/v1/rover-1/status -W 10 2>/dev/null |
      grep -m 1 '"tick_ts"' || true)
    if [ -n "$conn" ]; then
      online=$(( $(ms "$(sed -n 's/.*"ts":"\([^"]*\)".*/\1/p' <<<"$conn")") - t0 ))
    fi
    if [ -n "$status" ]; then
      local n ts
      n=$(sed -n 's/.*"tick":\([0-9]*\).*/\1/p' <<<"$status")
      ts=$(sed -n 's/.*"tick_ts":"\([^"]*\)".*/\1/p' <<<"$status")
      first=$(( $(ms "$ts") - (n - 1) * 50 - t0 ))
    fi
  fi
  sleep "$warmup"
  local c0 c1 w0 w1 s0 s1 sw threads
  c0=$(cputicks "$pid"); s0=$(ctxsw "$pid"); w0=$(date +%s%3N)
  sleep "$secs"
  c1=$(cputicks "$pid"); s1=$(ctxsw "$pid"); w1=$(date +%s%3N)
  cpu=$(printf '%.2f' "$(echo "($c1 - $c0) * 10 * 100 / ($w1 - $w0)" | bc -l)")
  sw=$(( (s1 - s0) * 1000 / (w1 - w0) ))
  threads=$(ls /proc/"$pid"/task | wc -l)
  local rss hwm anon file
  rss=$(kib "$pid" VmRSS); hwm=$(kib "$pid" VmHWM); anon=$(kib "$pid" RssAnon); file=$(kib "$pid" RssFile)
  kill -TERM "$pid"; wait "$pid" || true
  printf '%-28s RSS %5s MiB (executable %s, anonymous %s), peak %s MiB' "$label" "$(mib "$rss")" "$(mib "$file")" "$(mib "$anon")" "$(mib "$hwm")"
  if [ "${TIMES:-0}" = 1 ]; then
    printf '; CPU %s %% of a core, %s threads, %s context switches/s; ONLINE after %s ms, first tick after %s ms' "$cpu" "$threads" "$sw" "${online:-?}" "${first:-?}"
  fi
  echo
}

echo
echo "== the default daemon (built-in simulated rover, embedded broker, patrol at 20 Hz): ${warmup} s warm-up, then ${secs} s"
if [ ${#bins[@]} -gt 0 ]; then
  for _ in 1 2; do
    for b in "${bins[@]}"; do
      TIMES=1 daemon "$(basename "$b")" "$b"
    done
  done
  exit 0
fi
TIMES=1 daemon "amd64" "$tmp/rel/botd-linux-amd64"
if command -v qemu-arm-static >/dev/null; then
  # qemu's translated code and its own heap count in: an upper bound,
  # not the Pi's figure.
  daemon "armv6 (qemu-arm-static)" qemu-arm-static -cpu arm1176 "$tmp/rel/botd-linux-armv6"
  daemon "arm64 (qemu-aarch64-static)" qemu-aarch64-static "$tmp/rel/botd-linux-arm64"
fi
