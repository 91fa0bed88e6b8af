#!/usr/bin/env bash
# Make sure a Docker engine answers on this machine.
#  - If `docker info` answers: do nothing (idempotent).
#  - Else, as root on Debian/apt: install docker.io + iptables (+ debootstrap for the base image),
#    start dockerd in the background and wait (bounded) until it answers.
#  - Anywhere else: one clear error saying what is needed.
set -euo pipefail

WAIT_SECONDS=${FAULTLINE_DOCKER_WAIT:-90}
LOG=${FAULTLINE_DOCKERD_LOG:-/var/log/faultline-dockerd.log}

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
  exit 0
fi

case "${DOCKER_HOST:-}" in
  ""|unix:///var/run/docker.sock|unix:///run/docker.sock) ;;
  *) # Someone else's engine (remote, or an extra one: extra-engine.sh): starting the local default would not help.
     echo "faultline: the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer (docker info)." >&2
     exit 1 ;;
esac

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "faultline: no Docker engine answers and this machine cannot provision one automatically" \
       "(needs root on Debian with apt). Start a Docker engine (docker info must work) and retry." >&2
  exit 1
fi

need_pkgs=()
command -v dockerd >/dev/null 2>&1 || need_pkgs+=(docker.io)
command -v iptables >/dev/null 2>&1 || need_pkgs+=(iptables)
command -v debootstrap >/dev/null 2>&1 || need_pkgs+=(debootstrap)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "faultline: installing ${need_pkgs[*]} (Debian packages) ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "faultline: starting dockerd (log: $LOG) ..." >&2
  # setsid: the engine must outlive the shell (and the JVM) that started it.
  setsid nohup dockerd >"$LOG" 2>&1 </dev/null &
fi

for _ in $(seq 1 "$WAIT_SECONDS"); do
  if engine_answers; then
    echo "faultline: Docker engine is up." >&2
    exit 0
  fi
  sleep 1
done
echo "faultline: dockerd did not answer within ${WAIT_SECONDS}s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
