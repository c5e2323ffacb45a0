# Sourced (bash) by the scripts of scripts/ and bench/: strict mode, the source
# tree's root in $root, and the set-up steps they share.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# rb_need_exe PATH HOW: stop with one line when PATH is not an executable;
# HOW says how to get it.
rb_need_exe() {
    [ -x "$1" ] || { echo "$(basename "$0"): no $1 ($2)" >&2; exit 1; }
}

# rb_scratch NAME: $T, a fresh directory /tmp/recblur-NAME.*, removed when the
# script exits.
rb_scratch() {
    T="$(mktemp -d "/tmp/recblur-$1.XXXXXX")"
    trap 'rm -rf "$T"' EXIT
}

# rb_machine_line: the header line of a timing table: when, on what, how loaded
# (on a shared machine the load explains more than the CPU model).
rb_machine_line() {
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
         "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
         "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
