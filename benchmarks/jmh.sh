#!/usr/bin/env bash
# JMH micro-benchmarks (src/main/java/io/conduit/benchmarks/jmh), on the newest JDK under /usr/lib/jvm.
#
#   benchmarks/jmh.sh                      # every benchmark, short settings (1 fork, 3 x 1 s warm-up, 5 x 1 s)
#   benchmarks/jmh.sh BufferAllocation -p size=64   # any JMH command line (java -jar jmh ... -h lists options)
#
# BENCH_SKIP_BUILD=true skips the Maven build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")"
if [ "${BENCH_SKIP_BUILD:-false}" != true ]; then
  mvn -B -q -o -pl benchmarks -am package -DskipTests -DskipSecondJdk=true \
    || mvn -B -q -pl benchmarks -am package -DskipTests -DskipSecondJdk=true
fi
jdk=${BENCH_JDK:-}
if [ -z "$jdk" ]; then
  best=0
  for dir in /usr/lib/jvm/*/; do
    dir=${dir%/}
    [ -L "$dir" ] || [ ! -f "$dir/release" ] || [ ! -x "$dir/bin/java" ] && continue
    feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$dir/release")
    if [ -n "$feature" ] && [ "$feature" -gt "$best" ]; then best=$feature; jdk=$dir; fi
  done
fi
classpath="$here/target/classes:$(cat "$here/target/classpath.txt")"
if [ $# -eq 0 ]; then
  set -- -f 1 -wi 3 -w 1s -i 5 -r 1s io.conduit.benchmarks.jmh
fi
exec "$jdk/bin/java" -cp "$classpath" org.openjdk.jmh.Main -jvmArgsAppend "--enable-native-access=ALL-UNNAMED" "$@"
