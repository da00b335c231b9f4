#!/usr/bin/env bash
# Runs a command with two busy processes beside it, one per core of a 2-core machine, for as long as
# the command runs: how issue 26 checks that the suites hold on a loaded machine. For example
#   tools/under-load.sh npx vitest run --project e2e --project interop
#   tools/under-load.sh bash .ci/run
# Set UNDER_LOAD_PROCESSES for another number of busy processes.
set -u
busy=()
for _ in $(seq "${UNDER_LOAD_PROCESSES:-2}"); do
  node -e 'for (;;) {}' &
  busy+=("$!")
done
"$@"
status=$?
kill "${busy[@]}"
exit "$status"
