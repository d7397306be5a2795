#!/usr/bin/env bash
# Installs botd on a robot: the binary, a config, a system user and the
# systemd unit. Run as root on the robot, from a directory holding a botd
# binary built for it (see docs/DEPLOYMENT.md for cross-compiling).
#
#   sudo ./install.sh ./botd configs/rover-raspi.yaml
set -euo pipefail

bin=${1:?usage: install.sh BOTD_BINARY CONFIG}
config=${2:?usage: install.sh BOTD_BINARY CONFIG}
here=$(cd "$(dirname "$0")" && pwd)

install -m 0755 "$bin" /usr/local/bin/botd
install -d -m 0755 /etc/botd
if [ -e /etc/botd/botd.yaml ]; then
  echo "keeping the existing /etc/botd/botd.yaml (new one written as botd.yaml.new)"
  install -m 0640 "$config" /etc/botd/botd.yaml.new
else
  install -m 0640 "$config" /etc/botd/botd.yaml
fi
if ! id botd >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin botd
fi
for g in gpio i2c spi dialout; do
  getent group "$g" >/dev/null && usermod -aG "$g" botd || true
done
chgrp botd /etc/botd/botd.yaml* 
install -m 0644 "$here/botd.service" /etc/systemd/system/botd.service
/usr/local/bin/botd check-config /etc/botd/botd.yaml
systemctl daemon-reload
systemctl enable --now botd
systemctl --no-pager status botd
