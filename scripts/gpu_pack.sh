#!/usr/bin/env bash
# Pack GPU tests and benchmarks built here for a lent GPU machine whose call
# should only run them: the device tool's machine has the CUDA driver but not
# Debian's libraries (Ubuntu 24.04: no cmocka, no libtiff), and building the
# eight tiled orders there costs minutes of scarce device time.
#   1. build here: cmake ... -DCMAKE_CUDA_ARCHITECTURES=90 (add -DRECBLUR_CUDA_TILED_ORDERS
#      for a benchmark-only build: a test that needs an order left out fails)
#   2. scripts/gpu_pack.sh BUILD_DIR [NAME ...]   (default: every GPU test and gpu_bench)
#      -> _gpu/ (git-ignored; RB_GPU_PACK=_base packs into _base/, for a base
#      beside a branch): the binaries xz-compressed, the shared libraries they
#      need that are not glibc's, libstdc++ or CUDA's, and the build's commit
#   3. device call with carry ["_gpu"]: bash _gpu/run.sh NAME [ARGS...]
#      (unpacks once into /tmp/rb_gpu_<pack>, then runs NAME with those libraries)
# The carry limit is 64 MiB: the script prints the size.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: scripts/gpu_pack.sh BUILD_DIR [NAME ...]}"
shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(test_gpu test_gpu_host test_gpu_banded test_gpu_wide_periodic test_gpu_gauss_device test_gpu_fused
         test_gpu_1d_sat test_gpu_faults test_deblur_gpu test_warm_up test_host_alloc gpu_bench)
fi
out="$root/${RB_GPU_PACK:-_gpu}"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for n in "${names[@]}"; do
  p=$(find "$build/tests" "$build/bench" -maxdepth 2 -type f -name "$n" -perm -u+x 2>/dev/null | head -1)
  [ -n "$p" ] || { echo "gpu_pack: $n is not built in $build" >&2; exit 1; }
  cp "$p" "$stage/bin/"
  strip --strip-debug "$stage/bin/$n"
  ldd "$p" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | libpthread* | libdl.so* | librt.so* | ld-linux* | libstdc++* | libgcc_s* | \
        libcuda.so* | libcufft* | libcudart* | libnvidia*) ;; # the device's own
      *) cp -Ln "$lib" "$stage/lib/" ;;
    esac
  done
done
rm -rf "$out"
mkdir -p "$out"
# one stream with a dictionary longer than the binaries: each carries the same device code
# (librecblur links the CUDA back end statically), so xz stores it about once
tar -C "$stage" -cf - bin lib | xz -T1 --lzma2=preset=6,dict=512MiB > "$out/bin.tar.xz"
# the commit the build was made from (its source tree may be another worktree)
src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")"
{ echo "$src"; git -C "$src" log --oneline -1; git -C "$src" status --short; } > "$out/commit"
cat > "$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# bash _gpu/run.sh NAME [ARGS...]: NAME from the packed binaries (scripts/gpu_pack.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="/tmp/rb_gpu_$(basename "$here")"
sum="$(cksum < "$here/bin.tar.xz")"
if [ "$(cat "$dir/packed" 2>/dev/null)" != "$sum" ]; then
  rm -rf "$dir" && mkdir -p "$dir" && xz -dc "$here/bin.tar.xz" | tar -C "$dir" -xf - && echo "$sum" > "$dir/packed"
fi
name="${1:?usage: _gpu/run.sh NAME [ARGS...]}"
shift
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dir/bin/$name" "$@"
EOF
echo "gpu_pack: ${#names[@]} binaries from $build -> $out ($(du -sh "$out" | cut -f1); the carry limit is 64 MiB)"
