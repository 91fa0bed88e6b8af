#!/bin/sh
# Installs Debian's Chromium for the report screenshot test (ReportInChromiumTest), if it is missing.
# Idempotent; needs root and apt. Called from .ci/run before the results module's tests.
set -eu
if [ -x /usr/bin/chromium ]; then
    echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-chromium.sh: chromium is missing and this is not root; run: sudo apt-get install -y chromium" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
/usr/bin/chromium --version
