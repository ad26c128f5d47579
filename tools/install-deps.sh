#!/usr/bin/env bash
# Installs the Debian packages serq builds and tests with, when missing.
set -eu
# parallel, slurm-wlm and munge: the sweep tests run real GNU parallel and a one-node
# Slurm cluster (serq/sweep_parallel_test.sh, serq/sweep_slurm_test.sh);
# clang and its runtimes (libFuzzer, ASan, UBSan): the fuzz targets (fuzz/, tools/fuzz.sh);
# python3-protobuf: examples/python builds IR with protobuf's Python bindings;
# libnlopt-cxx-dev and libeigen3-dev: serq fit's optimiser and serq fit-steps' least squares;
# libyaml-cpp-dev: serq vllm reads a profile's meta.yaml;
# nlohmann-json3-dev: where a JSON file stops being JSON (text/json_row.h).
packages="bazel-bootstrap libprotobuf-dev protobuf-compiler libabsl-dev libgtest-dev libnlopt-cxx-dev libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev librsvg2-bin graphviz python3 python3-protobuf parallel slurm-wlm munge chromium clang libclang-rt-dev"
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
