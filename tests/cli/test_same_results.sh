#!/bin/sh
# test_same_results.sh - every view of mid-size and real traces equals, cell for cell, what
# the build before issue 11's speed work printed (tests/golden/same, tests/tools/same-results.sh).
# A deliberate change of output is regenerated with `make update-golden` and reviewed.
exec sh tests/tools/same-results.sh check
