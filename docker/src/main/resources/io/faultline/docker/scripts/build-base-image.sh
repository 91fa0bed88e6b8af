#!/usr/bin/env bash
# Build Faultline's base node image (JRE 17, iptables, iproute2, libfaketime, procps, fuse) without a registry:
# debootstrap a minimal Debian into a folder, then `docker import` it. Reused when it already exists.
# Usage: build-base-image.sh [IMAGE]   (default faultline/base:bookworm-jre17-fuse)
set -euo pipefail

IMAGE=${1:-${FAULTLINE_BASE_IMAGE:-faultline/base:bookworm-jre17-fuse}}
SUITE=${FAULTLINE_BASE_SUITE:-bookworm}
# fuse + libfuse2: the lazyfs power-loss filesystem mounts node data directories (the tag changes with this list).
PACKAGES=openjdk-17-jre-headless,iptables,iproute2,libfaketime,procps,ca-certificates-java,fuse,libfuse2

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # An engine that was already running skipped provisioning, which is where debootstrap is usually installed.
  echo "faultline: installing debootstrap (Debian package) ..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
command -v debootstrap >/dev/null 2>&1 || {
  echo "faultline: building the base image needs debootstrap (apt-get install debootstrap), or set" \
       "FAULTLINE_BASE_IMAGE to a public JRE 17 image where a registry is reachable." >&2
  exit 1
}

# The machine's own Debian mirror: the only one reachable here.
mirror=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
           /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n1 | awk '{print $2}' || true)
mirror=${mirror:-http://deb.debian.org/debian}

# Serialise concurrent builders (several test JVMs may ask at once).
exec 9>/tmp/faultline-base-image.lock
flock 9
docker image inspect "$IMAGE" >/dev/null 2>&1 && exit 0

dir=$(mktemp -d /tmp/faultline-rootfs.XXXXXX)
trap 'rm -rf "$dir"' EXIT
echo "faultline: building base image $IMAGE with debootstrap from $mirror (about a minute) ..." >&2
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$dir" "$mirror" >"$dir.log" 2>&1 || {
  echo "faultline: debootstrap failed; last lines:" >&2; tail -n 20 "$dir.log" >&2; exit 1; }
rm -f "$dir.log"
# Slim the image: package caches and docs are never used in a node.
rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc "$dir"/usr/share/man
tar -C "$dir" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  - "$IMAGE" >/dev/null
echo "faultline: base image $IMAGE built." >&2
