#!/bin/sh
# Unpacks Debian's JRE 17 for a foreign architecture, with the libraries it loads, into one directory that
# qemu user mode uses as its root (-L): native-fragments/emulation/prepare.sh ARCH DIR
#   ARCH  aarch64 or armv7 (Conduit's names; Debian's are arm64 and armhf)
#   DIR   the directory to fill, e.g. native-fragments/emulation/target/root-aarch64
# Nothing is installed on the system: the packages are fetched with 'apt-get download' and unpacked with
# 'dpkg -x'. The foreign architecture must be known to apt ('dpkg --add-architecture arm64' and 'apt-get update';
# .ci/run does both). A second run with the same package versions does nothing (DIR/.prepared names them).
# Prints the emulated java's path as its last line. Exits with 3 and one line when apt does not know the foreign
# packages (the architecture was not added), with 1 and one line naming any other problem.
set -eu

case "${1:-}" in
  aarch64) deb_arch=arm64 jvm_dir=java-17-openjdk-arm64 ;;
  armv7) deb_arch=armhf jvm_dir=java-17-openjdk-armhf ;;
  *) echo "usage: $0 aarch64|armv7 DIR" >&2; exit 2 ;;
esac
[ -n "${2:-}" ] || { echo "usage: $0 aarch64|armv7 DIR" >&2; exit 2; }
root=$2

# The JRE and what its libraries link against (libjvm: libstdc++, libgcc_s; libzip: zlib; all: glibc).
packages="openjdk-17-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g"

versions=""
for p in $packages; do
  v=$(apt-cache policy "$p:$deb_arch" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  if [ -z "$v" ] || [ "$v" = "(none)" ]; then
    echo "[emulation] apt knows no $p:$deb_arch: run 'dpkg --add-architecture $deb_arch && apt-get update' first" >&2
    exit 3
  fi
  versions="$versions $p:$deb_arch=$v"
done

java="$root/usr/lib/jvm/$jvm_dir/bin/java"
if [ -f "$root/.prepared" ] && [ "$(cat "$root/.prepared")" = "$versions" ] && [ -x "$java" ]; then
  echo "$java"
  exit 0
fi

rm -rf "$root"
mkdir -p "$root/.debs"
root=$(cd "$root" && pwd)
java="$root/usr/lib/jvm/$jvm_dir/bin/java"
# apt-get download writes into the current directory; as root it needs a directory the _apt user may write.
chmod 777 "$root/.debs"
(cd "$root/.debs" && apt-get download -q=2 $versions) || {
  echo "[emulation] 'apt-get download$versions' failed (network, or an outdated package list: run 'apt-get update')" >&2
  exit 1
}
for deb in "$root"/.debs/*.deb; do
  dpkg -x "$deb" "$root"
done
rm -rf "$root/.debs"

# Debian's JRE keeps its configuration in /etc/java-17-openjdk and links it from the JDK folder with absolute
# symbolic links (lib/jvm.cfg, conf/*, lib/security/*): resolved by the host kernel they would reach the host's
# /etc, so each is made to point into this directory instead.
find "$root" -type l | while read -r link; do
  target=$(readlink "$link")
  case "$target" in
    /*) ln -sfn "$root$target" "$link" ;;
  esac
done

[ -x "$java" ] || { echo "[emulation] $java is missing after unpacking$versions" >&2; exit 1; }
echo "$versions" > "$root/.prepared"
echo "$java"
