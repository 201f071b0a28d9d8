#!/usr/bin/env bash
# The peer `npm run bench:ab` measures Transact against: Debian's Postfix, DKIM-signing through
# OpenDKIM, on loopback only, relaying everything to the benchmark's sink. Needs root.
#
#   postfix-peer.sh start SINK_PORT [CPUS]   install the packages when missing (apt-get), write the
#                                            configuration, empty the queue, start OpenDKIM and
#                                            Postfix (pinned to CPUS with taskset when given);
#                                            prints "PID_OF_MASTER PID_OF_OPENDKIM"
#   postfix-peer.sh stop                     stop both
#
# Postfix listens on 127.0.0.1:2525 only and relays to [127.0.0.1]:SINK_PORT without DNS; its queue
# is the package's (/var/spool/postfix, fsync as shipped). OpenDKIM signs everything From
# bench.example (RSA-2048, selector s1, key kept in /etc/transact-bench across runs) over a UNIX
# socket; when it fails, Postfix answers 4xx rather than relaying unsigned mail. A TCP milter
# socket would add two delayed-ACK waits to every message, which is why it is not used here.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

ETC=/etc/transact-bench
RUN=/run/transact-bench
SOCK=$RUN/opendkim.sock
KEYS=$ETC/keys
LOG=/var/log/postfix-bench.log
MASTER_PID=/var/spool/postfix/pid/master.pid

say() { echo "[postfix-peer] $*" >&2; }
[ "$(id -u)" = 0 ] || { say "must run as root"; exit 1; }

install_packages() {
  local missing=()
  for p in postfix opendkim opendkim-tools; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  say "installing ${missing[*]}"
  # "No configuration": the package writes no main.cf; configure() writes the whole of it
  printf '%s\n' 'postfix postfix/main_mailer_type select No configuration' \
    'postfix postfix/mailname string mta.bench.example' | debconf-set-selections
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postfix opendkim opendkim-tools >/dev/null
  # the packages may start services of their own (a listener on port 25): stop them for good
  if [ -d /run/systemd/system ]; then
    systemctl disable --now postfix.service opendkim.service >/dev/null 2>&1 || true
  else
    /etc/init.d/opendkim stop >/dev/null 2>&1 || true
  fi
  postfix stop >/dev/null 2>&1 || true
}

configure() {
  local sink=$1
  install -d -m 0755 "$ETC"
  install -d -m 0750 -o opendkim -g opendkim "$KEYS"
  [ -s "$KEYS/s1.private" ] || opendkim-genkey -b 2048 -h sha256 -d bench.example -s s1 -D "$KEYS"
  chown opendkim:opendkim "$KEYS"/s1.*
  chmod 0644 "$KEYS/s1.txt"
  cat > "$ETC/opendkim.conf" <<EOF
Syslog no
UMask 007
UserID opendkim:opendkim
Socket local:$SOCK
PidFile $RUN/opendkim.pid
Mode s
Domain bench.example
Selector s1
KeyFile $KEYS/s1.private
InternalHosts 127.0.0.1
Canonicalization relaxed/simple
SignatureAlgorithm rsa-sha256
On-InternalError tempfail
On-KeyNotFound tempfail
On-Security tempfail
On-SignatureError tempfail
EOF
  id -nG postfix | tr ' ' '\n' | grep -qx opendkim || usermod -a -G opendkim postfix
  cat > /etc/postfix/main.cf <<EOF
compatibility_level = 3.6
myhostname = mta.bench.example
mydomain = bench.example
myorigin = \$mydomain
mydestination =
local_recipient_maps =
local_transport = error:no local delivery
alias_maps =
alias_database =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
relayhost = [127.0.0.1]:$sink
smtp_dns_support_level = disabled
smtp_host_lookup = native
smtp_tls_security_level = none
smtpd_tls_security_level = none
smtpd_milters = unix:$SOCK
non_smtpd_milters = \$smtpd_milters
milter_default_action = tempfail
maillog_file = $LOG
EOF
  cp /usr/share/postfix/master.cf.dist /etc/postfix/master.cf
  postconf -M# smtp/inet
  postconf -M "127.0.0.1:2525/inet=127.0.0.1:2525 inet n - n - - smtpd"
  postconf -F '*/*/chroot = n'
  touch "$LOG" && chown postfix:adm "$LOG"
  postfix check
}

pinned() { if [ -n "${CPUS:-}" ]; then taskset -c "$CPUS" "$@"; else "$@"; fi; }

start() {
  install_packages
  stop >/dev/null 2>&1 || true
  configure "$1"
  postsuper -d ALL >/dev/null 2>&1 || true
  install -d -m 0755 -o opendkim -g opendkim "$RUN"
  rm -f "$SOCK"
  pinned opendkim -x "$ETC/opendkim.conf" -P "$RUN/opendkim.pid"
  for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
  [ -S "$SOCK" ] || { say "opendkim did not open $SOCK"; exit 1; }
  pinned postfix start 2>/dev/null
  for _ in $(seq 100); do ss -Hltn 'sport = :2525' | grep -q . && break; sleep 0.1; done
  echo "$(tr -dc 0-9 < "$MASTER_PID") $(tr -dc 0-9 < "$RUN/opendkim.pid")"
}

# waits (at most 10 s) for the process named in a PID file to be gone
gone() { local p; p=$(tr -dc 0-9 < "$1" 2>/dev/null || true); for _ in $(seq 100); do
  { [ -z "$p" ] || ! kill -0 "$p" 2>/dev/null; } && return 0; sleep 0.1; done; return 1; }

stop() {
  postfix stop >/dev/null 2>&1 || true
  gone "$MASTER_PID" || say "postfix is still running"
  if [ -f "$RUN/opendkim.pid" ]; then
    kill "$(tr -dc 0-9 < "$RUN/opendkim.pid")" 2>/dev/null || true
    gone "$RUN/opendkim.pid" || say "opendkim is still running"
  fi
  rm -f "$RUN/opendkim.pid"
}

case "${1:-}" in
  start) CPUS=${3:-} start "${2:?sink port}" ;;
  stop) stop ;;
  *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
