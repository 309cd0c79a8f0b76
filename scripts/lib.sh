# lib.sh: helpers the test scripts share; source it (. scripts/lib.sh).

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# healthy PORT: does something on 127.0.0.1:PORT answer /health with 200?
# Plain bash, so the probes need no curl.
healthy() {
  local status
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  IFS= read -r -t 2 status <&3 || status=
  exec 3>&-
  [[ $status == *" 200 "* ]]
}

# wait_healthy PORT [SECONDS]: poll until /health answers, for up to
# SECONDS (30).
wait_healthy() {
  local deadline=$(($(now_ms) + ${2:-30} * 1000))
  until healthy "$1"; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.002
  done
}

# free_port: a port on 127.0.0.1 where nothing listens, below Linux's
# ephemeral range (32768 up) so no outgoing connection holds it either.
free_port() {
  local p
  for p in $(shuf -i 20000-32000 -n 50); do
    if ! { exec 3<>"/dev/tcp/127.0.0.1/$p"; } 2>/dev/null; then
      echo "$p"
      return
    fi
    exec 3>&-
  done
  return 1
}
