#!/bin/sh
# Configure Postfix for hfa-gateway from the environment, then run it in the foreground.
set -eu
: "${MAIL_HOSTNAME:?the MX host name, e.g. mx.example.com}"
: "${HFA_REPLY_DOMAIN:?the reply domain, as the gateway's HFA_REPLY_DOMAIN}"
cp /usr/share/postfix/main.cf.dist /etc/postfix/main.cf 2>/dev/null || : > /etc/postfix/main.cf
postconf -e "compatibility_level = 3.6" "myhostname = $MAIL_HOSTNAME" "mydestination =" \
  "inet_protocols = ipv4" "maillog_file = /dev/stdout" "alias_maps =" "alias_database =" \
  "mynetworks = 127.0.0.0/8" "smtp_tls_security_level = may" \
  "smtp_tls_CAfile = /etc/ssl/certs/ca-certificates.crt" "relayhost = ${RELAYHOST:-}"
postconf -M "postlog/unix-dgram=postlog unix-dgram n - n - 1 postlogd"
# No chroot: Debian's init script, which copies resolv.conf and friends into the chroot,
# does not run in a container, and the container is the confinement.
postconf -F '*/*/chroot = n'
sh /usr/local/sbin/hfa-postfix-setup --reply-domain "$HFA_REPLY_DOMAIN" \
  --gateway "${HFA_GATEWAY:-smtp:2525}" \
  --submission "${HFA_SUBMISSION:-0.0.0.0:10587}" \
  --submission-clients "${HFA_SUBMISSION_CLIENTS:?the gateway containers network, e.g. 172.30.57.0/24}" \
  --max-message-bytes "${HFA_MAX_MESSAGE_BYTES:-26214400}"
postfix check
exec postfix start-fg
