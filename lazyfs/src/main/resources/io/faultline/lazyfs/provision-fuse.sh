#!/bin/sh
# Installs what lazyfs needs to mount FUSE on this host: Debian's libfuse2 (the library jnr-fuse loads) and, unless
# some fusermount is already there, the package fuse (fusermount, used to unmount). Idempotent; needs root and apt.
# Run by HostFuse the first time a LazyFs is made on a host without libfuse2; .ci/run need not call it.
# Never installs `fuse` over fuse3 (the two conflict, and root mounts without fusermount anyway).
set -eu
[ -e /dev/fuse ] || { echo "faultline: /dev/fuse is missing: this kernel or container has no FUSE" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "faultline: lazyfs needs libfuse2; install it as root: apt-get install -y libfuse2 fuse" >&2
    exit 1
fi
pkgs=libfuse2
if ! command -v fusermount >/dev/null 2>&1 && ! command -v fusermount3 >/dev/null 2>&1; then
    pkgs="$pkgs fuse"
fi
echo "faultline: installing $pkgs (Debian packages) for lazyfs ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $pkgs >/dev/null
echo "faultline: installed $pkgs" >&2
