#!/usr/bin/env bash
# Load benchmark: Conduit (epoll, nio) and Netty 4.2 (epoll, NIO; stock and with Unsafe) echo servers, each in its
# own JVM on the newest JDK under /usr/lib/jvm, driven by the native load generator (src/main/c/loadgen.c).
#
#   benchmarks/run.sh [-Dbench.rounds=3] [-Dbench.durationMillis=4000] [-Dbench.contenders=conduit-nio,netty-epoll] ...
#
# Arguments are JVM options of the driver (io.conduit.benchmarks.LoadBenchmark documents every bench.* property).
# BENCH_SKIP_BUILD=true skips the Maven build. Every process started here is stopped on exit, Ctrl-C or failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

# shellcheck source=lib.sh
. "$here/lib.sh"

# 10,000 idle connections need as many descriptors in the load generator and in the server.
raise_open_files 65536
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 10100 ]; then
  echo "run.sh: the open-file limit is $(ulimit -n); the idle-connection step needs more than 10,100 (raise it, or pass -Dbench.idleConnections=1000)" >&2
fi

if [ "${BENCH_SKIP_BUILD:-false}" != true ]; then
  echo "Building benchmarks (mvn -pl benchmarks -am package -DskipTests) ..."
  mvn -B -q -o -pl benchmarks -am package -DskipTests -DskipSecondJdk=true \
    || mvn -B -q -pl benchmarks -am package -DskipTests -DskipSecondJdk=true
fi

jdk=${BENCH_JDK:-$(newest_jdk)}

driver=""
cleanup() {
  if [ -n "$driver" ] && kill -0 "$driver" 2>/dev/null; then
    # The driver's shutdown hook destroys the servers and load generators it started; then make sure by id.
    children=$(pgrep -P "$driver" || true)
    kill "$driver" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$driver" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$driver" 2>/dev/null || true
    for pid in $children; do kill -9 "$pid" 2>/dev/null || true; done
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

classpath="$here/target/classes:$(cat "$here/target/classpath.txt")"
"$jdk/bin/java" -Xmx256m -cp "$classpath" \
  -Dbench.jdk="$jdk" -Dbench.classpath="$classpath" \
  -Dbench.loadgen="$here/target/loadgen" -Dbench.out="$here/target/bench-results" \
  "$@" io.conduit.benchmarks.LoadBenchmark &
driver=$!
wait "$driver"
