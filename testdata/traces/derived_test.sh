#!/usr/bin/env bash
# The trace goldens against figures derived from the samples alone
# (derive.py --check): testdata/traces/*.txt and *.results.json, and
# examples/traces/*.txt.
root=${TEST_SRCDIR:-$PWD}/serq
[ -d "$root" ] || root=$PWD
cd "$root" && exec python3 testdata/traces/derive.py --check
