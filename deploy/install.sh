#!/usr/bin/env bash
# Installs or upgrades botd on a robot: the binary, a daemon config and the
# files it names (its hardware file, world and mission), a system user, the
# directories for keys and certificates, and the systemd unit. Run as root
# on the robot, from a directory holding a botd binary built for it (see
# docs/DEPLOYMENT.md for cross-compiling).
#
#   sudo ./install.sh ./botd configs/rover.yaml    # installs rover.yaml and the rover-raspi.yaml it names
#   DESTDIR=/tmp/stage PREFIX=/usr ./install.sh ./botd my.yaml   # stage a package: no user, no systemctl
#
# CONFIG is a daemon config (robot, hardware, failsafe, ...), never a
# hardware file (adaptors and devices): that is refused, as botd refuses
# it. An existing /etc/botd/botd.yaml, or an installed file it names, is
# kept (the new one is written beside it as FILE.new); an upgrade restarts
# a running botd.
set -euo pipefail

bin=${1:?usage: install.sh BOTD_BINARY CONFIG}
config=${2:?usage: install.sh BOTD_BINARY CONFIG}
here=$(cd "$(dirname "$0")" && pwd)
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
etc="$DESTDIR/etc/botd"
unitdir="$DESTDIR/etc/systemd/system"

if grep -Eq '^(adaptors|devices):' "$config" && ! grep -Eq '^hardware:' "$config"; then
  echo "install.sh: $config is a hardware file (adaptors and devices), not a daemon config:" >&2
  echo "  name it in a daemon config with \`hardware: $(basename "$config")\` (configs/rover.yaml is one) and install that" >&2
  exit 1
fi
# The files the config names by a relative path (hardware, world,
# mission) are installed beside it, at the same relative path, so that
# /etc/botd/botd.yaml finds them; an absolute path is left to the robot.
named=()
for key in hardware world mission; do
  value=$(sed -n -E "s/^$key:[[:space:]]*[\"']?([^\"' #]+)[\"']?[[:space:]]*(#.*)?$/\1/p" "$config" | head -n 1)
  case "$value" in
    "" | /*) continue ;;   # inline, none, or absolute
  esac
  case "$value" in
    .. | ../* | */.. | */../*) echo "install.sh: $config: $key: $value leaves the config's directory; name it by an absolute path" >&2; exit 1 ;;
  esac
  if [ ! -f "$(dirname "$config")/$value" ]; then
    echo "install.sh: $config: $key: $(dirname "$config")/$value does not exist" >&2
    exit 1
  fi
  named+=("$value")
done

# install_kept SRC DEST: installs SRC as DEST, or beside an existing DEST
# that differs as DEST.new (an edited file on the robot is kept).
install_kept() {
  if [ -e "$2" ]; then
    if ! cmp -s "$1" "$2"; then
      echo "keeping the existing $2 (the new one is $2.new)"
      install -m 0640 "$1" "$2.new"
    fi
  else
    install -m 0640 "$1" "$2"
  fi
}

install -d -m 0755 "$DESTDIR$PREFIX/bin" "$unitdir"
install -m 0755 "$bin" "$DESTDIR$PREFIX/bin/botd"
install -d -m 0750 "$etc"
# Mission signing keys (public keys, key ids) and broker certificates and
# credentials; referenced from the config (security.public_keys,
# broker.ca_file, cert_file, key_file, password_file).
install -d -m 0750 "$etc/keys" "$etc/tls"
install_kept "$config" "$etc/botd.yaml"
for f in ${named[@]+"${named[@]}"}; do
  install -d -m 0750 "$(dirname "$etc/$f")"
  install_kept "$(dirname "$config")/$f" "$etc/$f"
done
sed "s|/usr/local/bin/botd|$PREFIX/bin/botd|" "$here/botd.service" > "$unitdir/botd.service"
chmod 0644 "$unitdir/botd.service"

if [ -n "$DESTDIR" ]; then
  echo "staged in $DESTDIR (create the botd user and enable the unit on the robot)"
  exit 0
fi

if ! id botd >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin botd
fi
# Device access through the groups that own the devices, only where the
# distribution has them (Raspberry Pi OS: gpio, i2c, spi; serial: dialout).
for g in gpio i2c spi dialout; do
  if getent group "$g" >/dev/null; then usermod -aG "$g" botd; fi
done
chgrp -R botd "$etc"
"$PREFIX/bin/botd" check-config "$etc/botd.yaml"
systemctl daemon-reload
if systemctl is-active --quiet botd; then
  systemctl restart botd   # an upgrade: the new binary and unit take over
else
  systemctl enable --now botd
fi
systemctl --no-pager status botd
