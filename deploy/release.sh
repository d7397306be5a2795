#!/usr/bin/env bash
# Builds the release artifacts a robot's owner downloads, into DIR
# (default dist/):
#
#   botd-linux-{amd64,arm64,armv7,armv6}     the daemon
#   botctl-linux-{amd64,arm64,armv7,armv6}   the ground station / CLI
#   botd_VERSION_{amd64,arm64,armhf}.deb      the daemon as a Debian package
#   SHA256SUMS                                sha256sum of all of the above
#
#   deploy/release.sh            # everything, into dist/
#   deploy/release.sh DIR amd64  # only these targets (amd64 arm64 armv7 armv6)
#
# Reproducible: CGO_ENABLED=0, -trimpath, no build id, stripped (-s -w),
# the version stamped from git (git describe; VERSION overrides it) with
# -X main.version, and file dates in the .deb from the commit's date
# (SOURCE_DATE_EPOCH). The same commit built twice gives the same bytes.
#
# botd is built with the standard library's nethttpomithttp2 tag: its HTTP
# (the /metrics endpoint, MQTT over WebSocket) is HTTP/1.1, and net/http's
# bundled HTTP/2 would add 0.38 MB to the binary and about 0.4 MiB to the
# daemon's resident memory (docs/PERFORMANCE.md). botctl keeps HTTP/2 for
# the dashboard served over TLS. It is also built without inlining in the
# packages of deploy/cold-packages.txt (code that runs at start-up, on a
# mission's load or a rare event): 1 MB smaller, about 1 MiB less
# resident memory. deploy/buildflags.sh has the flags.
#
# The armhf .deb carries the armv6 binary: Raspberry Pi OS's 32-bit
# "armhf" runs on the Pi Zero and Pi 1 (ARMv6) as well as on the Pi 2/3
# (ARMv7), and an ARMv6 binary runs on both.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=${1:-dist}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(amd64 arm64 armv7 armv6)

version=${VERSION:-$(git describe --tags --always --dirty)}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
# A Debian version starts with a digit: v1.2.3 -> 1.2.3, an untagged
# commit -> 0.0.0~gitYYYYMMDD.HASH.
if [[ $version =~ ^v?[0-9]+\.[0-9] ]]; then
  debversion=${version#v}
else
  debversion=0.0.0~git$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d).$version
fi
debversion=${debversion//-/.}

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)

# shellcheck source=deploy/buildflags.sh
. deploy/buildflags.sh
botd_check_cold
botd_build_flags

goenv() {
  case $1 in
    amd64) echo "GOARCH=amd64" ;;
    arm64) echo "GOARCH=arm64" ;;
    armv7) echo "GOARCH=arm GOARM=7" ;;
    armv6) echo "GOARCH=arm GOARM=6" ;;
    *) echo "release.sh: unknown target $1 (amd64 arm64 armv7 armv6)" >&2; return 1 ;;
  esac
}

build() {
  local target=$1 cmd=$2 flags=(-trimpath)
  [ "$cmd" = botd ] && flags=("${BOTD_FLAGS[@]}")
  # shellcheck disable=SC2046
  env $(goenv "$target") GOOS=linux CGO_ENABLED=0 go build "${flags[@]}" \
    -ldflags "-s -w -buildid= -X main.version=$version" \
    -o "$dist/$cmd-linux-$target" "./cmd/$cmd"
}

# deb TARGET DEBARCH: the daemon as a package, staged by install.sh (the
# files a robot gets from `install.sh ./botd configs/default.yaml`), with
# botctl beside it and maintainer scripts for what install.sh does on a
# robot (the botd user in the device groups, the unit enabled).
deb() {
  local target=$1 arch=$2
  local stage; stage=$(mktemp -d)
  chmod 0755 "$stage"
  DESTDIR="$stage" PREFIX=/usr bash deploy/install.sh "$dist/botd-linux-$target" configs/default.yaml >/dev/null
  install -m 0755 "$dist/botctl-linux-$target" "$stage/usr/bin/botctl"
  # A package's unit lives in /usr/lib/systemd/system (/etc is the admin's).
  install -d -m 0755 "$stage/usr/lib/systemd/system"
  mv "$stage/etc/systemd/system/botd.service" "$stage/usr/lib/systemd/system/botd.service"
  rmdir "$stage/etc/systemd/system" "$stage/etc/systemd"
  install -d -m 0755 "$stage/usr/share/doc/botd"
  install -m 0644 docs/DEPLOYMENT.md "$stage/usr/share/doc/botd/DEPLOYMENT.md"
  install -m 0644 configs/botd.example.yaml "$stage/usr/share/doc/botd/botd.example.yaml"

  install -d -m 0755 "$stage/DEBIAN"
  (cd "$stage" && find etc -type f | sort | sed 's|^|/|') > "$stage/DEBIAN/conffiles"
  cat > "$stage/DEBIAN/control" <<EOF
Package: botd
Version: $debversion
Architecture: $arch
Maintainer: botd developers <botd@users.noreply.github.com>
Section: misc
Priority: optional
Depends: adduser
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Homepage: https://github.com/botd-project/botd
Description: behavior-tree mission daemon for robots
 botd runs behavior-tree missions on a robot (a Raspberry Pi or any Linux
 board) with Gobot drivers, reports over MQTT and takes commands from
 botctl. The default configuration in /etc/botd runs a simulated rover
 with an embedded broker on 127.0.0.1:1883; see
 /usr/share/doc/botd/DEPLOYMENT.md for a real robot.
EOF
  install -m 0755 deploy/deb/postinst deploy/deb/prerm deploy/deb/postrm "$stage/DEBIAN/"
  find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  dpkg-deb --root-owner-group -Zxz --build "$stage" "$dist/botd_${debversion}_$arch.deb" >/dev/null
  rm -rf "$stage"
}

for t in "${targets[@]}"; do
  goenv "$t" >/dev/null
  build "$t" botd
  build "$t" botctl
done
for t in "${targets[@]}"; do
  case $t in
    amd64) deb amd64 amd64 ;;
    arm64) deb arm64 arm64 ;;
    armv6) deb armv6 armhf ;;
  esac
done
(cd "$dist" && rm -f SHA256SUMS && sha256sum -- botd-linux-* botctl-linux-* $(ls botd_*.deb 2>/dev/null) > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
echo "release $version ($debversion) in $dist:"
(cd "$dist" && ls -l -- botd-linux-* botctl-linux-* $(ls botd_*.deb 2>/dev/null) SHA256SUMS | awk '{print "  " $5, $NF}')
