#!/usr/bin/env bash
# datapaths: auto
# The daemon's start, reloads and stop under valgrind's memcheck: no error,
# no definite leak (the scenario is tests/integration/checked_daemon.sh).
# shellcheck source=checked_daemon.sh source-path=SCRIPTDIR
CHECKER=valgrind
. "$(dirname "$0")/checked_daemon.sh"
