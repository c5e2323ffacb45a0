#!/usr/bin/env bash
# The run-time switches are read in one place, and README documents exactly them.
#  1. getenv appears in one file of engine/, cuda/, cli/ and the plug-ins:
#     engine/src/api/switches.c (switches.h says why);
#  2. the environment variables named in switches.c are exactly those of
#     README.md's "Run-time switches" table (first column).
# Usage: scripts/check_switches.sh [source root]; exit 1 with the difference.
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"
status=0

readers=$(grep -rlw getenv engine cuda cli plugin-* 2>/dev/null | sort || true)
if [ "$readers" != "engine/src/api/switches.c" ]; then
    echo "check_switches: getenv must appear only in engine/src/api/switches.c; found in:"
    echo "$readers" | sed 's/^/  /'
    status=1
fi

code=$(grep -o '"RECBLUR_[A-Z0-9_]*"' engine/src/api/switches.c | tr -d '"' | sort -u)
readme=$(awk '/^### Run-time switches/ {on = 1; next} on && /^#/ {exit} on' README.md |
         grep -o '^| `RECBLUR_[A-Z0-9_]*`' | grep -o 'RECBLUR_[A-Z0-9_]*' | sort -u)
if [ -z "$code" ] || [ -z "$readme" ]; then
    echo "check_switches: no switches found (code: $(echo "$code" | wc -w), README: $(echo "$readme" | wc -w))"
    exit 1
fi
only_code=$(comm -23 <(echo "$code") <(echo "$readme"))
only_readme=$(comm -13 <(echo "$code") <(echo "$readme"))
if [ -n "$only_code" ]; then
    echo "check_switches: read by the code but missing from README's table:" $only_code
    status=1
fi
if [ -n "$only_readme" ]; then
    echo "check_switches: in README's table but read by no code:" $only_readme
    status=1
fi
[ $status -eq 0 ] && echo "check_switches: $(echo "$code" | wc -l) switches, read in switches.c, all in README"
exit $status
