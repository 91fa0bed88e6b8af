#!/bin/sh
# Installs Debian's libfuse2 and fusermount (package fuse) for the lazyfs tests, which mount FUSE on the host.
# Idempotent; needs root and apt. Called from .ci/run before the tests.
set -eu
if [ -e /usr/lib/x86_64-linux-gnu/libfuse.so.2 ] && command -v fusermount >/dev/null 2>&1; then
    echo "fuse present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-fuse.sh: libfuse2/fusermount missing and this is not root; run: sudo apt-get install -y fuse libfuse2" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends fuse libfuse2
[ -e /dev/fuse ] || { echo "install-fuse.sh: /dev/fuse is missing: this kernel or container has no FUSE" >&2; exit 1; }
