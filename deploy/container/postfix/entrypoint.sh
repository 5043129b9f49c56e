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
# TLS for the lawyers' replies on port 25: their mail servers encrypt when the MX offers it,
# and some (a tenant with enforced TLS) deliver only then. The certificate of MAIL_HOSTNAME
# is mounted at /etc/postfix/tls (fullchain.pem, privkey.pem; compose.yaml); without one a
# self-signed certificate is made, which opportunistic TLS accepts (senders do not verify
# an MX's certificate unless DANE or MTA-STS asks them to).
tls_dir=/etc/postfix/tls
cert="${MX_TLS_CERT_FILE:-$tls_dir/fullchain.pem}"
key="${MX_TLS_KEY_FILE:-$tls_dir/privkey.pem}"
if [ ! -r "$cert" ] || [ ! -r "$key" ]; then
  echo "hfa-postfix: no certificate at $cert: a self-signed one for $MAIL_HOSTNAME is used" >&2
  cert=/etc/postfix/self-signed/fullchain.pem key=/etc/postfix/self-signed/privkey.pem
  if [ ! -r "$cert" ]; then
    mkdir -p /etc/postfix/self-signed && chmod 0700 /etc/postfix/self-signed
    openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=$MAIL_HOSTNAME" \
      -addext "subjectAltName=DNS:$MAIL_HOSTNAME" -keyout "$key" -out "$cert" 2>/dev/null
  fi
fi
postconf -e "smtpd_tls_security_level = may" "smtpd_tls_chain_files = $key, $cert" \
  "smtpd_tls_protocols = >=TLSv1.2" "smtpd_tls_mandatory_protocols = >=TLSv1.2" \
  "smtpd_tls_received_header = yes" "smtpd_tls_loglevel = 1"
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
