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
# /proc, /sys and /dev are mounted for the command and unmounted afterwards.
set -euo pipefail
root_dir="${RECBLUR_TRIXIE_ROOT:-/var/cache/recblur/trixie}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The packages the Debian 13 host tests need (build, ImageMagick 7, GIMP 3, GEGL).
TRIXIE_DEPS=(
  cmake gcc libc6-dev make pkg-config libpng-dev libtiff-dev libcmocka-dev
  imagemagick-7.q16 libmagickcore-7.q16-dev libmagickwand-7.q16-dev
  gimp libgimp-3.0-dev libgegl-dev xvfb xauth python3 python3-numpy
)

mounted=0
mount_all() {
  mount -t proc proc "$root_dir/proc"
  mount -t sysfs sys "$root_dir/sys"
  mount --rbind /dev "$root_dir/dev"
  mkdir -p "$root_dir/src"
  mount --bind "$src" "$root_dir/src"
  mounted=1
}
umount_all() {
  [ "$mounted" = 1 ] || return 0
  umount -R "$root_dir/src" 2>/dev/null || umount -l "$root_dir/src" || true
  umount -R "$root_dir/dev" 2>/dev/null || umount -l "$root_dir/dev" || true
  umount "$root_dir/proc" "$root_dir/sys" 2>/dev/null || umount -l "$root_dir/proc" "$root_dir/sys" || true
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
