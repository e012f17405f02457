#!/usr/bin/env bash
# Fetches Debian trixie's CUDA 12.4 packages (non-free) with a private apt configuration — the machine's own
# sources are left as they are — and unpacks them with `dpkg -x` into .cache/ (git-ignored; NVIDIA's licence
# forbids redistributing headers and libraries, so nothing here is ever committed).
#
#   scripts/fetch-cuda12.sh headers   # headers for the generator: .cache/ctk/12.4/include (about 1 GB of .debs)
#   scripts/fetch-cuda12.sh libs      # the small run time libraries: .cache/cuda-12.4/lib (libcudart.so.12,
#                                     # libnvrtc.so.12 and its builtins, libnvJitLink.so.12, libnvvm.so.4, ...)
#   scripts/fetch-cuda12.sh pack      # after `libs`: .cache/cuda12-gpu.tar.xz, libcudart + libnvrtc (+ builtins)
#                                     # only, small enough to carry to the GPU machine; there:
#                                     #   mkdir -p .cache/cuda-12.4/lib && tar xJf .cache/cuda12-gpu.tar.xz -C .cache/cuda-12.4/lib
#                                     #   CUDA_TS_CUDA12_LIBS=$PWD/.cache/cuda-12.4/lib npm run test:gpu:bun
#   scripts/fetch-cuda12.sh math      # the math libraries into the same folder: libcublas.so.12, libcublasLt.so.12,
#                                     # libcufft.so.11, libcurand.so.10, libcusolver.so.11, libcusparse.so.12 (and
#                                     # libnvJitLink.so.12, which cuSPARSE and cuSOLVER need); about 650 MB of .debs
#   scripts/fetch-cuda12.sh pack-math [LIB...]
#                                     # after `math`: .cache/cuda12-math-<lib>.tar.xz per library named (default
#                                     # curand: cublas, cublasLt, cufft, curand, cusolver, cusparse, nvjitlink), each
#                                     # its own file to carry to the GPU machine; one larger than a carry holds
#                                     # (64 MiB) is split into .tar.xz.partNN pieces of 60 MiB, one carry each; there:
#                                     #   mkdir -p .cache/cuda-12.4/lib
#                                     #   for f in .cache/cuda12-math-*.tar.xz; do tar xJf "$f" -C .cache/cuda-12.4/lib; done
#                                     #   cat .cache/cuda12-math-cufft.tar.xz.part* | tar xJ -C .cache/cuda-12.4/lib
#
# The mirror's host name is read, never printed: apt runs quietly.
# The mirror is read from the machine's apt configuration (the first `URIs:` line of /etc/apt/sources.list.d/*.sources
# or the first `deb` line of /etc/apt/sources.list); override with CUDA_TS_DEBIAN_MIRROR.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-libs}
if [ "$what" = pack ]; then
  lib=.cache/cuda-12.4/lib
  [ -e "$lib/libcudart.so.12" ] || { echo "fetch-cuda12: run \`$0 libs\` first" >&2; exit 1; }
  tar cJf .cache/cuda12-gpu.tar.xz -C "$lib" $(cd "$lib" && ls libcudart.so.12* libnvrtc.so.12* libnvrtc-builtins.so.12*)
  ls -la .cache/cuda12-gpu.tar.xz
  exit 0
fi
if [ "$what" = pack-math ]; then
  lib=.cache/cuda-12.4/lib
  shift
  wanted=("${@:-curand}")
  for name in "${wanted[@]}"; do
    case "$name" in
      cublas) files="libcublas.so.12*" ;;
      cublasLt|cublaslt) files="libcublasLt.so.12*" ;;
      cufft) files="libcufft.so.11*" ;;
      curand) files="libcurand.so.10*" ;;
      cusolver) files="libcusolver.so.11*" ;;
      cusparse) files="libcusparse.so.12*" ;;
      nvjitlink) files="libnvJitLink.so.12*" ;;
      *) echo "fetch-cuda12: pack-math knows cublas, cublasLt, cufft, curand, cusolver, cusparse, nvjitlink; not $name" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086
    (cd "$lib" && ls $files >/dev/null 2>&1) || { echo "fetch-cuda12: no $files in $lib: run \`$0 math\` first" >&2; exit 1; }
    out=.cache/cuda12-math-$name.tar.xz
    rm -f "$out" "$out".part*
    # shellcheck disable=SC2086
    tar cf - -C "$lib" $(cd "$lib" && ls $files) | xz -T0 -9 > "$out"
    # Over what one carry holds: pieces of 60 MiB, one per call (cat them back together there).
    if [ "$(stat -c %s "$out")" -gt $((60 * 1024 * 1024)) ]; then
      split -b 60M -d "$out" "$out.part"
      rm "$out"
    fi
    ls -la "$out"*
  done
  exit 0
fi
suite=${CUDA_TS_DEBIAN_SUITE:-trixie}
apt_dir=${CUDA_TS_APT_DIR:-.cache/apt}
debs=.cache/debs
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$debs"

uri=${CUDA_TS_DEBIAN_MIRROR:-}
if [ -z "$uri" ]; then
  uri=$(grep -m1 -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' || true)
fi
if [ -z "$uri" ]; then
  uri=$(grep -m1 -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' || true)
fi
[ -n "$uri" ] || { echo "fetch-cuda12: no Debian mirror in the apt configuration; set CUDA_TS_DEBIAN_MIRROR" >&2; exit 1; }
printf 'deb %s %s main contrib non-free\n' "$uri" "$suite" > "$apt_dir/sources.list"
O=(-o "Dir::State::Lists=$PWD/$apt_dir/lists" -o "Dir::Etc::SourceList=$PWD/$apt_dir/sources.list"
   -o Dir::Etc::SourceParts=/dev/null -o "Dir::Cache=$PWD/$apt_dir/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${O[@]}" -qq update >/dev/null 2>&1 || { echo "fetch-cuda12: apt-get update failed with the private configuration in $apt_dir" >&2; exit 1; }

case "$what" in
  libs) pkgs=(libcudart12 libnvrtc12 libnvrtc-builtins12.4 libnvjitlink12 libnvvm4 libnvfatbin12) ;;
  math) pkgs=(libcublas12 libcublaslt12 libcufft11 libcurand10 libcusolver11 libcusparse12 libnvjitlink12) ;;
  # libcu++-dev: nv/target, which cuda_fp16.h (included by cublas_api.h) includes.
  headers) pkgs=(nvidia-cuda-dev libcupti-dev libnvidia-ml-dev libcufile-dev nvidia-cuda-toolkit 'libcu++-dev') ;;
  *) echo "usage: $0 [libs|math|headers|pack|pack-math [LIB...]]" >&2; exit 2 ;;
esac
(cd "$debs" && apt-get "${O[@]}" -qq download "${pkgs[@]}" >/dev/null 2>&1) || { echo "fetch-cuda12: apt-get download ${pkgs[*]} failed" >&2; exit 1; }
echo "downloaded: $(cd "$debs" && ls ${pkgs[@]/%/_*.deb} 2>/dev/null | tr '\n' ' ')"

root=.cache/cuda-12.4
mkdir -p "$root"
for p in "${pkgs[@]}"; do
  for f in "$debs/${p}"_*.deb; do [ -e "$f" ] && dpkg -x "$f" "$root"; done
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
if [ "$what" = libs ] || [ "$what" = math ]; then
  if [ "$what" = libs ]; then rm -rf "$root/lib"; fi
  mkdir -p "$root/lib"
  # Libraries land in usr/lib/<multiarch>; one flat folder (for LD_LIBRARY_PATH or CUDA_TS_<NAME>_PATH), with the
  # versioned names only (the unversioned .so links belong to the -dev packages).
  find "$root/usr/lib/$multiarch" -maxdepth 2 -name 'lib*.so.*' -exec cp -a {} "$root/lib/" \;
  echo "libraries: $root/lib"; ls "$root/lib"
else
  mkdir -p .cache/ctk/12.4
  rm -rf .cache/ctk/12.4/include
  cp -a "$root/usr/include" .cache/ctk/12.4/include
  # nvvm.h: Debian puts it in nvidia-cuda-toolkit (usr/include), unpacked above with the rest.
  echo "headers: .cache/ctk/12.4/include"
fi
