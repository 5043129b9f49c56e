#!/bin/sh
# Put hfa-gateway behind this host's Postfix, both ways (see README, "Behind Postfix"):
#   inbound:  mail for reply+TOKEN@REPLY_DOMAIN is verified at RCPT and relayed to the gateway;
#   outbound: the gateway sends through a loopback-only smtpd on SUBMISSION.
# It writes exactly what deploy/postfix/main.cf and master.cf show, keeps the entries your
# main.cf already has in relay_domains, transport_maps and smtpd_recipient_restrictions,
# and may be run again (with the same or new values). Then: postfix check && postfix reload.
#
# usage: setup.sh [-c CONFIG_DIR] --reply-domain DOMAIN [--gateway HOST:PORT]
#                 [--submission HOST:PORT] [--submission-clients CIDR] [--max-message-bytes N]
#                 [--authserv-id ID]
set -eu

config_dir=""
reply_domain=""
gateway="127.0.0.1:2525"          # HFA_SMTP_BIND
submission="127.0.0.1:10587"      # HFA_SMTP_RELAY
submission_clients="127.0.0.0/8"  # who may send through it: the gateway's hosts only
max_message_bytes=26214400        # HFA_MAX_MESSAGE_BYTES
authserv_id=""                    # HFA_TRUSTED_AUTHSERV_ID (default: this host's myhostname)
# Room for the Received header (and any other trace header) Postfix adds on the way.
trace_headroom=65536

usage() { sed -n '9,11p' "$0" | sed 's/^# //' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -c) config_dir="$2"; shift 2 ;;
    --reply-domain) reply_domain="$2"; shift 2 ;;
    --gateway) gateway="$2"; shift 2 ;;
    --submission) submission="$2"; shift 2 ;;
    --submission-clients) submission_clients="$2"; shift 2 ;;
    --max-message-bytes) max_message_bytes="$2"; shift 2 ;;
    --authserv-id) authserv_id="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "setup.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ -n "$reply_domain" ] || { echo "setup.sh: --reply-domain is required" >&2; usage; }
case "$max_message_bytes" in ''|*[!0-9]*) echo "setup.sh: --max-message-bytes: a number" >&2; exit 2 ;; esac
if [ "$max_message_bytes" -le "$trace_headroom" ]; then
  echo "setup.sh: --max-message-bytes must be above $trace_headroom" >&2; exit 2
fi

pc() { if [ -n "$config_dir" ]; then postconf -c "$config_dir" "$@"; else postconf "$@"; fi; }
dir=$(pc -h config_directory)

# Add ITEM to the list setting NAME unless it is there: at the front (first) or the end.
add_to_list() {
  name=$1; item=$2; where=$3
  current=$(pc -nh "$name" 2>/dev/null || true)
  case "$current" in *"$item"*) return 0 ;; esac
  if [ -z "$current" ]; then value="$item"
  elif [ "$where" = first ]; then value="$item, $current"
  else value="$current, $item"; fi
  pc -e "$name = $value"
}

# Inbound: the maps (rewritten each run, so a new gateway address takes effect).
umask 022
printf '%s\thfa:[%s]:%s\n' "$reply_domain" "${gateway%:*}" "${gateway##*:}" > "$dir/hfa_transport"
printf '%s\treject_unverified_recipient\n' "$reply_domain" > "$dir/hfa_recipient_access"
authserv_id=${authserv_id:-$(pc -h myhostname)}
# Every address of the reply domain but a reply+TOKEN one (that is, the bounce address,
# HFA_MAIL_FROM: the gateway refuses all others) takes delivery reports only: the null
# sender, decided at RCPT, so that nothing a person (or a forger) sends it is ever accepted
# and then bounced.
domain_pattern=$(printf '%s' "$reply_domain" | sed 's/[].[\\*^$()+?{}|]/\\&/g')
printf '/^reply\\+[^@]*@%s$/ DUNNO\n/@%s$/ hfa_bounce_address\n' "$domain_pattern" \
  "$domain_pattern" > "$dir/hfa_bounce_recipients"
printf '%s\n' '/^<>$/ OK' \
  '/./ REJECT 5.7.1 This address takes only delivery reports; to answer a request, reply to the address in the email'"'"'s Reply-To' \
  > "$dir/hfa_bounce_senders"
# RFC 8601 section 5: an Authentication-Results header that claims this server's id and
# arrives with the message is a forgery; it is removed before any filter adds the real one.
id_pattern=$(printf '%s' "$authserv_id" | sed 's/[].[\\*^$()+?{}|]/\\&/g')
printf '/^Authentication-Results:[[:space:]]*%s([[:space:]]|;|$)/ IGNORE\n' "$id_pattern" \
  > "$dir/hfa_header_checks"
if [ -n "$config_dir" ]; then
  postmap -c "$config_dir" "hash:$dir/hfa_transport" "hash:$dir/hfa_recipient_access"
else
  postmap "hash:$dir/hfa_transport" "hash:$dir/hfa_recipient_access"
fi

add_to_list relay_domains "$reply_domain" last
add_to_list transport_maps 'hash:$config_directory/hfa_transport' first
add_to_list smtpd_recipient_restrictions \
  'check_recipient_access hash:$config_directory/hfa_recipient_access' first
add_to_list smtpd_recipient_restrictions \
  'check_recipient_access regexp:$config_directory/hfa_bounce_recipients' first
pc -e "unverified_recipient_reject_code = 550"
add_to_list smtpd_restriction_classes hfa_bounce_address last
pc -e 'hfa_bounce_address = check_sender_access regexp:$config_directory/hfa_bounce_senders'
add_to_list header_checks 'regexp:$config_directory/hfa_header_checks' first
limit=$((max_message_bytes - trace_headroom))
pc -e "message_size_limit = $limit"
# Postfix refuses to start when a mailbox limit is below message_size_limit.
# (-n: only what main.cf sets; computing every default can stall on DNS for seconds.)
for mailbox_limit in mailbox_size_limit virtual_mailbox_limit; do
  current=$(pc -nh "$mailbox_limit" 2>/dev/null || true)
  current=${current:-51200000}
  if [ "$current" != 0 ] && [ "$current" -lt "$limit" ]; then pc -e "$mailbox_limit = $limit"; fi
done

# The transport to the gateway and the loopback submission service for its own mail.
pc -M "hfa/unix=hfa unix - - n - - smtp"
pc -P "hfa/unix/syslog_name=postfix/hfa" "hfa/unix/smtp_tls_security_level=none"
# A previous run may have used another submission address: drop hfa's old one.
pc -M 2>/dev/null | awk '/^[^ #].* inet / && /postfix\/hfa-submission/ {print $1}' | \
  while read -r old; do [ "$old" = "$submission" ] || pc -MX "$old/inet"; done
pc -M "$submission/inet=$submission inet n - n - - smtpd"
pc -P "$submission/inet/syslog_name=postfix/hfa-submission" \
      "$submission/inet/mynetworks=$submission_clients" \
      "$submission/inet/smtpd_client_restrictions=permit_mynetworks,reject" \
      "$submission/inet/smtpd_relay_restrictions=permit_mynetworks,reject" \
      "$submission/inet/smtpd_recipient_restrictions="

echo "hfa-gateway: $reply_domain -> $gateway (verified at RCPT, 550), gateway mail in on $submission,"
echo "the bounce address takes the null sender only (at RCPT); incoming Authentication-Results for $authserv_id removed;"
echo "message_size_limit = $limit (HFA_MAX_MESSAGE_BYTES $max_message_bytes - $trace_headroom)."
echo "Check and apply: postfix${config_dir:+ -c $config_dir} check && postfix${config_dir:+ -c $config_dir} reload"
