#!/usr/bin/env bash
# Installs or upgrades botd on a robot: the binary, a config, a system user,
# the directories for keys and certificates, and the systemd unit. Run as
# root on the robot, from a directory holding a botd binary built for it
# (see docs/DEPLOYMENT.md for cross-compiling).
#
#   sudo ./install.sh ./botd configs/rover-raspi.yaml
#   DESTDIR=/tmp/stage PREFIX=/usr ./install.sh ./botd my.yaml   # stage a package: no user, no systemctl
#
# An existing /etc/botd/botd.yaml is kept (the new one is written beside it
# as botd.yaml.new); an upgrade restarts a running botd.
set -euo pipefail

bin=${1:?usage: install.sh BOTD_BINARY CONFIG}
config=${2:?usage: install.sh BOTD_BINARY CONFIG}
here=$(cd "$(dirname "$0")" && pwd)
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
etc="$DESTDIR/etc/botd"
unitdir="$DESTDIR/etc/systemd/system"

install -d -m 0755 "$DESTDIR$PREFIX/bin" "$unitdir"
install -m 0755 "$bin" "$DESTDIR$PREFIX/bin/botd"
install -d -m 0750 "$etc"
# Mission signing keys (public keys, key ids) and broker certificates and
# credentials; referenced from the config (security.public_keys,
# broker.ca_file, cert_file, key_file, password_file).
install -d -m 0750 "$etc/keys" "$etc/tls"
if [ -e "$etc/botd.yaml" ]; then
  if ! cmp -s "$config" "$etc/botd.yaml"; then
    echo "keeping the existing $etc/botd.yaml (the new one is $etc/botd.yaml.new)"
    install -m 0640 "$config" "$etc/botd.yaml.new"
  fi
else
  install -m 0640 "$config" "$etc/botd.yaml"
fi
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
