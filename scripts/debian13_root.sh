#!/usr/bin/env bash
# Debian 13 (trixie) hosts on this Debian 12 machine: ImageMagick 7 and GIMP 3
# live in a separate root made with mmdebstrap (never add trixie to the
# machine's own apt sources: that would upgrade the host; trixie's libraries
# need GLIBC 2.38, so they cannot be unpacked into a prefix either).
#
#   bash scripts/debian13_root.sh make            # make the root, install the packages (idempotent)
#   bash scripts/debian13_root.sh run CMD...      # run CMD inside, the source tree at /src
#
# The root lives in $RECBLUR_TRIXIE_ROOT (default /var/cache/recblur/trixie).
# /proc, /sys and /dev are mounted for the command and unmounted afterwards;
# a run first detaches whatever is mounted under the root (a killed run's
# leftovers), so two runs on one root must not overlap.
set -euo pipefail
root_dir="${RECBLUR_TRIXIE_ROOT:-/var/cache/recblur/trixie}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The packages the Debian 13 host tests need (build, ImageMagick 7, GIMP 3, GEGL).
TRIXIE_DEPS=(
  cmake gcc libc6-dev make pkg-config libpng-dev libtiff-dev libcmocka-dev
  imagemagick-7.q16 libmagickcore-7.q16-dev libmagickwand-7.q16-dev
  gimp libgimp-3.0-dev libgegl-dev xvfb xauth python3 python3-numpy
)

# A run that was killed (CI's time limit, a session's end) leaves its mounts,
# and the next `mount -t sysfs` then fails with "already mounted" (exit 32):
# so every mount starts by detaching whatever is under the root, deepest first.
mounted=0
mounts_under_root() {
  awk -v r="$root_dir/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -ru
}
clear_mounts() {
  local pass t targets
  for pass in 1 2 3 4; do # stacked mounts of one path come off one per pass
    mapfile -t targets < <(mounts_under_root)
    [ ${#targets[@]} -eq 0 ] && return 0
    # A slave /dev first: unmounting a shared one would take the host's /dev/pts with it.
    mount --make-rslave "$root_dir/dev" 2>/dev/null || true
    for t in "${targets[@]}"; do
      umount "$t" 2>/dev/null || umount -l "$t" 2>/dev/null || true
    done
  done
  if [ -n "$(mounts_under_root)" ]; then
    echo "debian13_root.sh: cannot unmount under $root_dir:" >&2
    mounts_under_root >&2
    return 1
  fi
}
mount_all() {
  clear_mounts
  mounted=1 # set first, so a mount that fails halfway is still undone on exit
  mount -t proc proc "$root_dir/proc"
  mount -t sysfs sys "$root_dir/sys"
  mount --rbind /dev "$root_dir/dev"
  mount --make-rslave "$root_dir/dev"
  mkdir -p "$root_dir/src"
  mount --bind "$src" "$root_dir/src"
}
umount_all() {
  [ "$mounted" = 1 ] || return 0
  clear_mounts || true
  mounted=0
}
trap umount_all EXIT

make_root() {
  if [ ! -x "$root_dir/usr/bin/apt-get" ]; then
    command -v mmdebstrap >/dev/null || apt-get install -y -q mmdebstrap </dev/null
    mkdir -p "$(dirname "$root_dir")"
    rm -rf "$root_dir"
    mmdebstrap --variant=minbase --mode=root --include=ca-certificates trixie "$root_dir"
  fi
  local missing=() p
  for p in "${TRIXIE_DEPS[@]}"; do
    chroot "$root_dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    mount_all
    chroot "$root_dir" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    chroot "$root_dir" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
    umount_all
  fi
}

case "${1:-}" in
  make) make_root ;;
  run)
    shift
    make_root
    mount_all
    chroot "$root_dir" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
      bash -c 'cd /src && "$@"' bash "$@"
    ;;
  *) echo "usage: $0 make | run CMD..." >&2; exit 2 ;;
esac
