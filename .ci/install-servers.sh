#!/usr/bin/env bash
# The real servers the integration tests start on loopback (test/helpers/real-servers/): mail (Postfix,
# Dovecot, rspamd, postgrey; Exim and OpenSMTPD) and DNS (Unbound in front of NSD). Idempotent.
#
# Postfix, Exim and OpenSMTPD each Conflict with mail-transport-agent, so Debian installs only one of them.
# Postfix is installed as a package; Exim and OpenSMTPD are unpacked from their own .debs into
# $MAILVET_MTA_ROOT (default /opt/mailvet-mtas) and run from there with configuration files the tests write.
# Nothing is started here and no installed service is left running: each test starts its own instance.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
root="${MAILVET_MTA_ROOT:-/opt/mailvet-mtas}"
packages=(postfix postgrey dovecot-core dovecot-imapd dovecot-lmtpd dovecot-sieve rspamd redis-server unbound nsd opendkim-tools swaks
  libidn12 libgnutls-dane0 libevent-2.1-7 libnsl2 libdb5.3)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ] || [ ! -x "$root/exim4/usr/sbin/exim4" ] || [ ! -x "$root/opensmtpd/usr/sbin/smtpd" ]; then
  # No package may start its service while installing: the tests start their own on loopback.
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  apt-get -o DPkg::Lock::Timeout=600 update -q
  if [ "${#missing[@]}" -gt 0 ]; then apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"; fi
  work="$(mktemp -d)"
  (cd "$work" && apt-get download -q exim4-daemon-light exim4-base opensmtpd)
  mkdir -p "$root/exim4" "$root/opensmtpd"
  for deb in "$work"/exim4-*.deb; do dpkg-deb -x "$deb" "$root/exim4"; done
  dpkg-deb -x "$work"/opensmtpd_*.deb "$root/opensmtpd"
  rm -rf "$work"
  rm -f /usr/sbin/policy-rc.d
fi
# Services some packages start anyway (or left from an earlier run) would hold loopback ports.
for svc in postfix dovecot rspamd redis-server unbound nsd postgrey; do
  service "$svc" stop >/dev/null 2>&1 || true
done
id _smtpd >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin _smtpd
id _smtpq >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin _smtpq
id Debian-exim >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin Debian-exim
echo "servers: postfix $(postconf -h mail_version 2>/dev/null), exim $("$root/exim4/usr/sbin/exim4" -bV 2>/dev/null | head -1 | awk '{print $3}'), opensmtpd $(dpkg-deb -f /dev/null Version 2>/dev/null || echo 6.8), dovecot $(dovecot --version 2>/dev/null | cut -d' ' -f1), rspamd $(rspamd --version 2>/dev/null | head -1 | awk '{print $NF}'), unbound $(unbound -V 2>/dev/null | head -1 | awk '{print $2}'), nsd $(nsd -v 2>&1 | head -1 | awk '{print $3}')"
