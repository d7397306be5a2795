#!/usr/bin/env bash
# Measures botd's footprint where a Pi feels it, for docs/PERFORMANCE.md:
# the stripped release binaries' sizes per architecture, what each module
# costs in the binary, and the resident memory of the default daemon
# (the built-in simulated rover with its embedded broker) after it has
# run a while, on the host and, where qemu-user-static is installed,
# under emulation (memory, not time, means something there).
#
#   deploy/footprint.sh [SECONDS]    # default 30 s of running per daemon
#
# The binaries are built as deploy/release.sh builds them (into a
# temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== stripped release binaries (deploy/release.sh: -trimpath -s -w, CGO_ENABLED=0)"
deploy/release.sh "$tmp/rel" amd64 arm64 armv7 armv6 >/dev/null
printf '%-8s %12s %12s\n' arch botd botctl
for a in amd64 arm64 armv7 armv6; do
  printf '%-8s %12s %12s\n' "$a" "$(stat -c %s "$tmp/rel/botd-linux-$a")" "$(stat -c %s "$tmp/rel/botctl-linux-$a")"
done
echo
echo "== modules linked into botd (go version -m)"
go version -m "$tmp/rel/botd-linux-armv6" | awk '$1 == "dep" {print "  " $2, $3}'

echo
echo "== what each module costs in botd (linux/armv6, symbol sizes from an unstripped build, KiB)"
CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=6 go build -trimpath -o "$tmp/botd-syms" ./cmd/botd
# Symbols from .bss on (.bss, .noptrbss) take no room in the file (the
# FIPS DRBG's 32 MiB buffer is one): left out by address.
bss=$(readelf -SW "$tmp/botd-syms" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".bss" {print $3}')
go tool nm -size -type "$tmp/botd-syms" | awk -v bss="$bss" '
  # code, read-only and initialised data: what the file holds (not bss)
  function pad(a) { a = sprintf("%8s", a); gsub(/ /, "0", a); return tolower(a) }
  $2 ~ /^[0-9]+$/ && $3 ~ /^[TtRrDd]$/ && pad($1) < pad(bss) {
    name = $4
    for (i = 5; i <= NF; i++) name = name " " $i
    # the package path: up to the last "/" segment, then to its first "."
    n = name; sub(/^type:\*?/, "", n); sub(/^go:(itab|link)\./, "", n)
    slash = match(n, /\/[^\/]*$/); head = slash ? substr(n, 1, slash) : ""; tail = slash ? substr(n, slash + 1) : n
    sub(/\..*/, "", tail); pkg = head tail
    # group by module: github.com/x/y, golang.org/x/y, gopkg.in/y, else the first element
    split(pkg, p, "/")
    if (p[1] ~ /\./ && (p[1] == "github.com" || p[1] == "golang.org" || p[1] == "go.yaml.in" || p[1] == "gitlab.com" || p[1] == "gobot.io")) mod = p[1] "/" p[2] "/" p[3]
    else if (p[1] ~ /\./) mod = p[1] "/" p[2]
    else if (p[1] == "main") mod = "github.com/botd-project/botd"
    else if (p[1] == "go:func") mod = "runtime metadata (go:func.*)"
    else mod = "std: " p[1]
    sum[mod] += $2
  }
  END { for (m in sum) printf "%8.0f  %s\n", sum[m] / 1024, m }' | sort -rn | head -n 25

rss() {
  local label=$1; shift
  local dir; dir=$(mktemp -d -p "$tmp")
  "$@" -listen 127.0.0.1:0 -state-dir "$dir" > "$dir/log" 2>&1 &
  local pid=$!
  sleep "$secs"
  # Under qemu-user the daemon is the qemu process: its RSS includes the
  # emulator's own (a few MiB) and its translated code.
  local rss hwm
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" || true
  printf '%-28s RSS %6.1f MiB  peak %6.1f MiB\n' "$label" "$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)"
}

echo
echo "== resident memory of the default daemon after ${secs} s (built-in simulated rover, embedded broker, patrol)"
rss "amd64" "$tmp/rel/botd-linux-amd64"
if command -v qemu-arm-static >/dev/null; then
  # qemu's translated code and its own heap count in: an upper bound,
  # not the Pi's figure.
  rss "armv6 (qemu-arm-static)" qemu-arm-static -cpu arm1176 "$tmp/rel/botd-linux-armv6"
  rss "arm64 (qemu-aarch64-static)" qemu-aarch64-static "$tmp/rel/botd-linux-arm64"
fi
