#!/usr/bin/env bash
# A second (third, ...) Docker engine on this machine, for campaigns spread over several engines
# (`campaign --docker-hosts`). Each engine has its own socket, data-root, exec-root, pidfile, address pool and
# default bridge (fl-NAME; Faultline puts every node on a network it creates), so it shares nothing with the main
# engine (never --bridge none: dockerd then deletes the main engine's docker0 as a stale default bridge).
#
# Usage: extra-engine.sh start NAME    start engine NAME (e.g. docker2) unless it answers; prints its DOCKER_HOST
#        extra-engine.sh stop NAME     stop it (SIGTERM, bounded wait), keeping its data-root for the next start
#        extra-engine.sh host NAME     print its DOCKER_HOST (unix:///run/faultline-NAME.sock)
# Needs root and dockerd (provision-engine.sh installs it). Images are per engine: `start` copies the base image
# from the main engine when that one has it (a local pipe, no registry); node images are built on the engine itself.
set -euo pipefail

cmd=${1:-}
name=${2:-}
if [[ -z "$cmd" || ! "$name" =~ ^[a-z0-9][a-z0-9-]{0,30}$ ]]; then
  echo "usage: extra-engine.sh start|stop|host NAME   (NAME: lower-case letters, digits, dashes)" >&2
  exit 2
fi

sock=/run/faultline-$name.sock
host=unix://$sock
exec_root=/run/faultline-$name
pidfile=/run/faultline-$name.pid
data_root=${FAULTLINE_ENGINE_DATA:-/var/lib/faultline-$name}
log=/var/log/faultline-$name.log
# A pool of its own: the main engine's project networks are 10.213.x.0/24 (Cluster), its bridge 172.17/16.
pool=${FAULTLINE_ENGINE_POOL:-10.$(( 214 + $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 20 )).0.0/16}
base=${FAULTLINE_BASE_IMAGE:-faultline/base:bookworm-jre17-fuse}
bridge=fl-$(printf '%s' "$name" | cut -c1-12)
# the bridge's own /24 at the top of the engine's pool (networks it creates are allocated from the bottom)
bridge_ip=$(printf '%s' "$pool" | cut -d. -f1-2).255.1/24

answers() { timeout 10 docker -H "$host" info >/dev/null 2>&1; }

case "$cmd" in
  host)
    echo "$host"
    ;;
  start)
    if ! answers; then
      [ "$(id -u)" = 0 ] || { echo "faultline: starting engine $name needs root" >&2; exit 1; }
      command -v dockerd >/dev/null 2>&1 || bash "$(dirname "$0")/provision-engine.sh"
      mkdir -p "$exec_root" "$data_root"
      # Its own default bridge. With --bridge none, dockerd deletes any "docker0" it finds as a stale default bridge,
      # and that one is the main engine's: every build on the main engine then failed.
      if ! ip link show "$bridge" >/dev/null 2>&1; then
        ip link add "$bridge" type bridge
        ip addr add "$bridge_ip" dev "$bridge"
        ip link set "$bridge" up
      fi
      echo "faultline: starting engine $name on $host (log: $log) ..." >&2
      # setsid: the engine outlives the shell and JVM that started it; `stop` ends it.
      setsid nohup dockerd --host "$host" --data-root "$data_root" --exec-root "$exec_root" \
        --pidfile "$pidfile" --bridge "$bridge" --default-address-pool "base=$pool,size=24" \
        >"$log" 2>&1 </dev/null &
      for _ in $(seq 1 "${FAULTLINE_DOCKER_WAIT:-90}"); do
        answers && break
        sleep 1
      done
      answers || { echo "faultline: engine $name did not answer; last lines of $log:" >&2; tail -n 20 "$log" >&2; exit 1; }
    fi
    if ! docker -H "$host" image inspect "$base" >/dev/null 2>&1 \
        && DOCKER_HOST= timeout 10 docker image inspect "$base" >/dev/null 2>&1; then
      echo "faultline: copying $base from the main engine to $name ..." >&2
      DOCKER_HOST= docker save "$base" | docker -H "$host" load >/dev/null
    fi
    echo "$host"
    ;;
  stop)
    if [ -f "$pidfile" ]; then
      pid=$(cat "$pidfile")
      if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        if kill -0 "$pid" 2>/dev/null; then
          echo "faultline: engine $name did not stop within 60 s; killing it" >&2
          kill -KILL "$pid"
        fi
      fi
    fi
    ip link del "$bridge" 2>/dev/null || true
    ;;
  *)
    echo "usage: extra-engine.sh start|stop|host NAME" >&2
    exit 2
    ;;
esac
