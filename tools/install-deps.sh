#!/usr/bin/env bash
# Installs the Debian packages serq builds and tests with, when missing.
set -eu
packages="bazel-bootstrap libprotobuf-dev protobuf-compiler libabsl-dev libgtest-dev librsvg2-bin graphviz python3 chromium"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends $missing
fi
