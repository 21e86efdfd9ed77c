# Sourced by scripts/test (bash; the caller has cd'd to the repo root).
#
# ensure_nats_server: makes sure the Debian nats-server package is installed (apt-get, as root) and exports
# NATS_SERVER with the binary's path. The NATSClient tests start their own servers from it: each test mints an
# operator, a system account and an application account with the module's own JWT code, writes a server config in
# operator mode with a full resolver preloaded with those accounts, and runs nats-server as a child process on a
# free loopback port (three of them with routes for the cluster test), so no server is left running between runs
# and none is shared. The TLS test also needs the openssl command (for a throwaway certificate).
ensure_nats_server() {
  local binary
  binary=$(command -v nats-server || true)
  [[ -z $binary && -x /usr/sbin/nats-server ]] && binary=/usr/sbin/nats-server
  if [[ -z $binary ]]; then
    if [[ $(id -u) -ne 0 ]]; then
      echo "nats: nats-server missing and not root: install the Debian package nats-server" >&2
      return 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null || {
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null
    } || return 1
    binary=/usr/sbin/nats-server
  fi
  export NATS_SERVER=$binary
  echo "nats: $("$binary" --version) at $binary (the tests start their own servers)"
}
