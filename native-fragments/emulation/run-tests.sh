#!/bin/sh
# Runs compiled JUnit test classes on Debian's JRE 17 for a foreign architecture under qemu user mode:
#   native-fragments/emulation/run-tests.sh ARCH TARGET CLASSES EXCLUDED
#   ARCH     aarch64 or armv7
#   TARGET   this module's target directory: the jars are in TARGET/lib (shared) and TARGET/lib-ARCH (the
#            architecture's fragment); the JRE goes to TARGET/root-ARCH (prepare.sh), the console launcher's
#            output to TARGET/emulated-ARCH.log and its XML reports to TARGET/emulated-reports-ARCH
#   CLASSES  fully qualified test class names, comma-separated
#   EXCLUDED a regular expression of fully qualified method names left out (what qemu cannot emulate)
# Without the emulator (or without the foreign architecture in apt) it prints one "[tools] SKIPPED" line and
# exits 0; with CONDUIT_REQUIRE_TOOLS=true (.ci/run) it fails instead, and a skipped test fails the run too.
# Exits non-zero when a test fails. Prints the test counts and the wall-clock time of the emulated run.
set -eu

arch=$1 target=$2 classes=$3 excluded=$4
here=$(cd "$(dirname "$0")" && pwd)
case "$arch" in
  aarch64) qemu=qemu-aarch64-static deb_arch=arm64 ;;
  armv7) qemu=qemu-arm-static deb_arch=armhf ;;
  *) echo "usage: $0 aarch64|armv7 TARGET CLASSES EXCLUDED" >&2; exit 2 ;;
esac

# One line for a missing prerequisite: a skip, or a failure under CONDUIT_REQUIRE_TOOLS=true.
missing() {
  if [ "${CONDUIT_REQUIRE_TOOLS:-}" = true ]; then
    echo "[tools] FAILED: $1, and CONDUIT_REQUIRE_TOOLS=true forbids skipping the emulated $arch epoll tests; $2" >&2
    exit 1
  fi
  echo "[tools] SKIPPED: $1: the emulated $arch epoll tests are skipped; $2"
  exit 0
}

command -v "$qemu" >/dev/null 2>&1 \
  || missing "'$qemu' is not on the PATH" "install it with 'apt-get install -y qemu-user-static'"

mkdir -p "$target"
target=$(cd "$target" && pwd)
root="$target/root-$arch"
status=0
java=$("$here/prepare.sh" "$arch" "$root" | tail -n 1) || status=$?
if [ "$status" -eq 3 ]; then
  missing "apt knows no $deb_arch packages" "run 'dpkg --add-architecture $deb_arch && apt-get update'"
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi

classpath=$(ls "$target"/lib/*.jar "$target/lib-$arch"/*.jar | tr '\n' ':')
set --
for class in $(echo "$classes" | tr ',' ' '); do
  set -- "$@" --select-class "$class"
done
log="$target/emulated-$arch.log"
reports="$target/emulated-reports-$arch"
rm -rf "$reports"
# The emulated JVM's temporary and working directory (JUnit's @TempDir, the extracted library) is on tmpfs: a
# 32-bit JRE lists directories with getdents, which fails with EOVERFLOW ("Value too large for defined data type")
# on the 64-bit inode numbers of a host's ext4 under qemu; tmpfs numbers its inodes in 32 bits.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  tmp=$(mktemp -d /dev/shm/conduit-emulated-$arch-XXXXXX)
else
  tmp="$target/tmp-$arch"
  rm -rf "$tmp"
  mkdir -p "$tmp"
fi
trap 'rm -rf "$tmp"' EXIT

echo "[emulation] $arch: running the named tests on $("$qemu" --version | head -n 1) (log: $log)"
start=$(date +%s)
status=0
# C1 only and the serial collector: under emulation the C2 compiler and parallel GC threads cost more than
# they save in a run this short.
# It runs in that directory too: a test that lists its working directory would meet the same EOVERFLOW.
(cd "$tmp" && exec "$qemu" -L "$root" "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m -Djava.io.tmpdir="$tmp" \
  -cp "$classpath" org.junit.platform.console.ConsoleLauncher execute --disable-banner --disable-ansi-colors \
  --details=tree --reports-dir="$reports" --fail-if-no-tests --exclude-methodname="$excluded" "$@") > "$log" 2>&1 || status=$?
seconds=$(( $(date +%s) - start ))

count() {
  sed -n "s/^\[ *\([0-9]*\) $1 *\]\$/\1/p" "$log" | head -n 1
}
found=$(count "tests found") successful=$(count "tests successful") failed=$(count "tests failed")
skipped=$(count "tests skipped") aborted=$(count "tests aborted")
echo "[emulation] $arch: ${found:-?} tests found, ${successful:-?} successful, ${failed:-?} failed," \
  "${skipped:-?} skipped, ${aborted:-?} aborted in ${seconds} s"
if [ "$status" -ne 0 ]; then
  grep -E "✘|\[X\]|Exception|Error" "$log" | head -n 40 >&2 || true
  echo "[emulation] $arch: the emulated tests failed (exit $status); see $log" >&2
  exit 1
fi
if [ "${CONDUIT_REQUIRE_TOOLS:-}" = true ] && [ "${skipped:-0}${aborted:-0}" != 00 ]; then
  echo "[emulation] $arch: tests were skipped or aborted, and CONDUIT_REQUIRE_TOOLS=true forbids it; see $log" >&2
  exit 1
fi
