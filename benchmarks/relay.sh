#!/usr/bin/env bash
# The gateway's TCP relay measured against HAProxy (TCP mode), in one run of interleaved rounds:
#   1. redis-benchmark (SET and GET, 50 clients, pipeline 16) directly to redis-server, through HAProxy with nbthread 1
#      and 2, and through the gateway's relay on epoll and on nio with 1 and 2 I/O threads;
#   2. an echo through each proxy (src/main/c/echoserver.c behind it, the load generator src/main/c/loadgen.c in front):
#      ping-pong of 64 bytes and streaming, with each proxy's CPU (user + system, /proc/PID/stat) per operation;
#   3. strace -c of each proxy during a short redis-benchmark: system calls per request.
#
#   benchmarks/relay.sh
#   RELAY_ROUNDS=1 RELAY_REQUESTS=100000 RELAY_STEP_MILLIS=2000 benchmarks/relay.sh      # a smoke run
#
# Settings are environment variables (defaults in parentheses): RELAY_ROUNDS (3), RELAY_REQUESTS (2000000, per
# redis-benchmark test), RELAY_STEP_MILLIS (4000, each echo step), RELAY_WARMUP_MILLIS (2000, echo warm-up per
# contender and round), RELAY_CONNECTIONS ("1 16 256", ping-pong), RELAY_STREAM_CONNECTIONS ("1 16"),
# RELAY_CONTENDERS (all seven, see below), RELAY_ECHO_PROXY (v2: the proxies send a PROXY header to the echo server;
# v1 or none), RELAY_STRACE_REQUESTS (200000; 0 skips the strace step), RELAY_IDLE_TIMEOUT_MS (60000),
# RELAY_MAX_CONNECTIONS (10000), RELAY_GATEWAY_OPTS (-Xms512m -Xmx512m), RELAY_JDK (the newest under /usr/lib/jvm),
# RELAY_GATEWAY_DIST (gateway/target/conduit-gateway-*), RELAY_SKIP_BUILD (false).
#
# Contenders: direct, haproxy-1t, haproxy-2t, relay-epoll-1t, relay-nio-1t, relay-epoll-2t, relay-nio-2t; on request
# relay-io_uring-1t and relay-io_uring-2t (the gateway on io_uring). Every
# process started here listens on loopback only and is stopped on exit, Ctrl-C or failure. Nothing is pinned to a CPU.
# The table goes to standard output and to target/relay-results/results-<time>.md; raw values and logs are in
# target/relay-results/<time>/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
# shellcheck source=lib.sh
. "$here/lib.sh"

rounds=${RELAY_ROUNDS:-3}
requests=${RELAY_REQUESTS:-2000000}
step_ms=${RELAY_STEP_MILLIS:-4000}
warmup_ms=${RELAY_WARMUP_MILLIS:-2000}
connections=${RELAY_CONNECTIONS:-1 16 256}
stream_connections=${RELAY_STREAM_CONNECTIONS:-1 16}
contenders=${RELAY_CONTENDERS:-direct haproxy-1t relay-epoll-1t relay-nio-1t haproxy-2t relay-epoll-2t relay-nio-2t}
echo_proxy=${RELAY_ECHO_PROXY:-v2}
strace_requests=${RELAY_STRACE_REQUESTS:-200000}
idle_timeout_ms=${RELAY_IDLE_TIMEOUT_MS:-60000}
max_connections=${RELAY_MAX_CONNECTIONS:-10000}
gateway_opts=${RELAY_GATEWAY_OPTS:--Xms512m -Xmx512m}
connections=${connections//,/ }
stream_connections=${stream_connections//,/ }
contenders=${contenders//,/ }

fail() {
  echo "relay.sh: $*" >&2
  exit 2
}
for setting in rounds requests step_ms warmup_ms strace_requests idle_timeout_ms max_connections; do
  [[ ${!setting} =~ ^[0-9]+$ ]] || fail "$setting must be a whole number, got '${!setting}'"
done
[ "$rounds" -ge 1 ] && [ "$requests" -ge 1 ] && [ "$step_ms" -ge 100 ] \
  || fail "RELAY_ROUNDS and RELAY_REQUESTS must be at least 1, RELAY_STEP_MILLIS at least 100"
for c in $connections $stream_connections; do
  [[ $c =~ ^[1-9][0-9]*$ ]] || fail "connection counts must be positive whole numbers, got '$c'"
done
for c in $contenders; do
  case $c in
    direct | haproxy-1t | haproxy-2t | relay-epoll-1t | relay-nio-1t | relay-epoll-2t | relay-nio-2t) ;;
    relay-io_uring-1t | relay-io_uring-2t) ;;
    *) fail "unknown contender '$c' (direct, haproxy-1t, haproxy-2t, relay-epoll-1t, relay-nio-1t," \
      "relay-epoll-2t, relay-nio-2t, relay-io_uring-1t, relay-io_uring-2t)" ;;
  esac
done
case $echo_proxy in
  none | v1 | v2) ;;
  *) fail "RELAY_ECHO_PROXY must be none, v1 or v2, got '$echo_proxy'" ;;
esac

raise_open_files 65536

if [ "${RELAY_SKIP_BUILD:-false}" != true ]; then
  echo "Building the gateway and the benchmarks (mvn -pl gateway,benchmarks -am package -DskipTests) ..."
  mvn -B -q -o -pl gateway,benchmarks -am package -DskipTests -DskipSecondJdk=true \
    || mvn -B -q -pl gateway,benchmarks -am package -DskipTests -DskipSecondJdk=true
fi

jdk=${RELAY_JDK:-$(newest_jdk)}
dist=${RELAY_GATEWAY_DIST:-$(find "$root/gateway/target" -maxdepth 1 -type d -name 'conduit-gateway-*' 2>/dev/null \
  | head -n 1)}
loadgen=$here/target/loadgen
echoserver=$here/target/echoserver
[ -n "$dist" ] && [ -x "$dist/bin/conduit-gateway" ] \
  || fail "no gateway distribution under gateway/target (build it: mvn -pl gateway -am package -DskipTests)"
[ -x "$loadgen" ] && [ -x "$echoserver" ] && [ -d "$here/target/classes/io/conduit/benchmarks" ] \
  || fail "benchmarks/target lacks loadgen, echoserver or classes" \
    "(build them: mvn -pl benchmarks -am package -DskipTests)"

# Missing tools drop what needs them, one line each.
redis_ok=true
for tool in redis-server:redis-server redis-benchmark:redis-tools; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    echo "relay.sh: ${tool%%:*} is missing (apt-get install -y ${tool#*:}): no redis-benchmark rows"
    redis_ok=false
  fi
done
if ! command -v haproxy >/dev/null; then
  echo "relay.sh: haproxy is missing (apt-get install -y haproxy): no HAProxy columns, no ratios"
  contenders=$(echo "$contenders" | tr ' ' '\n' | grep -v '^haproxy-' | tr '\n' ' ')
fi
if [ "$strace_requests" -gt 0 ] && ! command -v strace >/dev/null; then
  echo "relay.sh: strace is missing (apt-get install -y strace): no system-call counts"
  strace_requests=0
fi
[ "$redis_ok" = true ] || strace_requests=0

stamp=$(date -u +%Y%m%d-%H%M%S)
results=$here/target/relay-results
out=$results/$stamp
mkdir -p "$out"
raw=$out/raw.tsv
: >"$raw"
clock_ticks=$(getconf CLK_TCK)

# ---- processes: every one started here is stopped on exit ----
started=()
cleanup() {
  local pid
  for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 40); do
    local alive=false
    for pid in "${started[@]}"; do kill -0 "$pid" 2>/dev/null && alive=true; done
    [ "$alive" = true ] || break
    sleep 0.25
  done
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

used_ports=" "
# A TCP port nothing listens on, on loopback, not handed out before in this run.
free_port() {
  local p
  for _ in $(seq 1 500); do
    p=$((20000 + RANDOM % 40000))
    [[ $used_ports == *" $p "* ]] && continue
    if [ -z "$(ss -Hltn "sport = :$p")" ]; then
      used_ports="$used_ports$p "
      echo "$p"
      return 0
    fi
  done
  fail "no free TCP port found"
}

# wait_listening PORT PID LOG: until something accepts on 127.0.0.1:PORT (at most 60 s) while PID lives.
wait_listening() {
  local port=$1 pid=$2 log=$3
  for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "relay.sh: process $pid exited; its log $log:" >&2
      tail -n 20 "$log" >&2
      return 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  echo "relay.sh: nothing listens on 127.0.0.1:$port after 60 s; log $log" >&2
  return 1
}

# User and system CPU of PID so far, in clock ticks (fields 14 and 15 of /proc/PID/stat, after the command name).
cpu_ticks() {
  sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'
}

declare -A redis_port echo_port proxy_pid

# ---- the upstreams ----
if [ "$redis_ok" = true ]; then
  upstream_redis=$(free_port)
  redis-server --port "$upstream_redis" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --dir "$out" \
    >"$out/redis-server.log" 2>&1 &
  started+=($!)
  wait_listening "$upstream_redis" "$!" "$out/redis-server.log" || fail "redis-server did not start"
fi
"$echoserver" 0 >"$out/echoserver.log" 2>&1 &
echo_pid=$!
started+=("$echo_pid")
for _ in $(seq 1 100); do grep -q '^LISTENING ' "$out/echoserver.log" && break; sleep 0.1; done
upstream_echo=$(sed -n 's/^LISTENING //p' "$out/echoserver.log")
[ -n "$upstream_echo" ] || fail "the echo server did not start: $(cat "$out/echoserver.log")"

# ---- the proxies ----
start_haproxy() {
  local name=$1 threads=$2 cfg=$out/$1.cfg send=""
  case $echo_proxy in
    v1) send=" send-proxy" ;;
    v2) send=" send-proxy-v2" ;;
  esac
  # Both frontends' limits, within the open-file limit (HAProxy needs two descriptors per connection, and some).
  local global_maxconn=$((max_connections * 2 + 100)) fd_limit
  fd_limit=$(ulimit -n)
  if [ "$fd_limit" != unlimited ] && [ "$global_maxconn" -gt $(((fd_limit - 200) / 2)) ]; then
    global_maxconn=$(((fd_limit - 200) / 2))
  fi
  echo_port[$name]=$(free_port)
  {
    echo "global"
    echo "    nbthread $threads"
    echo "    maxconn $global_maxconn"
    echo "defaults"
    echo "    mode tcp"
    echo "    maxconn $max_connections"
    echo "    timeout connect 10s"
    echo "    timeout client ${idle_timeout_ms}ms"
    echo "    timeout server ${idle_timeout_ms}ms"
    echo "frontend echo"
    echo "    bind 127.0.0.1:${echo_port[$name]}"
    echo "    default_backend echo"
    echo "backend echo"
    echo "    server echo 127.0.0.1:$upstream_echo$send"
    if [ "$redis_ok" = true ]; then
      redis_port[$name]=$(free_port)
      echo "frontend redis"
      echo "    bind 127.0.0.1:${redis_port[$name]}"
      echo "    default_backend redis"
      echo "backend redis"
      echo "    server redis 127.0.0.1:$upstream_redis"
    fi
  } >"$cfg"
  haproxy -db -f "$cfg" >"$out/$name.log" 2>&1 &
  proxy_pid[$name]=$!
  started+=($!)
  wait_listening "${echo_port[$name]}" "$!" "$out/$name.log"
}

# A gateway on a home of its own (bundles/ linked to the distribution's), its conf/ holding one relay to redis and one
# to the echo server; -XX:ActiveProcessorCount sets its I/O threads (a listener gets one event loop per processor).
start_gateway() {
  local name=$1 transport=$2 threads=$3 home=$out/$1
  mkdir -p "$home/conf"
  ln -s "$dist/bundles" "$home/bundles"
  local limits="idle.timeout.ms = $idle_timeout_ms"$'\n'"max.connections = $max_connections"$'\n'
  echo_port[$name]=$(free_port)
  {
    echo "listen = tcp://127.0.0.1:${echo_port[$name]}"
    echo "upstream = tcp://127.0.0.1:$upstream_echo"
    printf '%s' "$limits"
    [ "$echo_proxy" = none ] || echo "proxy.protocol.send = $echo_proxy"
  } >"$home/conf/io.conduit.gateway.relay-echo.cfg"
  if [ "$redis_ok" = true ]; then
    redis_port[$name]=$(free_port)
    {
      echo "listen = tcp://127.0.0.1:${redis_port[$name]}"
      echo "upstream = tcp://127.0.0.1:$upstream_redis"
      printf '%s' "$limits"
    } >"$home/conf/io.conduit.gateway.relay-redis.cfg"
  fi
  JAVA_HOME=$jdk JAVA_OPTS="$gateway_opts -XX:ActiveProcessorCount=$threads -Dconduit.transport=$transport \
-Dconduit.transport.strict=true -Dconduit.gateway.home=$home" \
    "$dist/bin/conduit-gateway" --no-shell </dev/null >"$home/gateway.log" 2>&1 &
  proxy_pid[$name]=$!
  started+=($!)
  local pid=$!
  for _ in $(seq 1 600); do
    grep -q '^Ready' "$home/gateway.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -q '^Ready: .* 0 problem' "$home/gateway.log" \
    || ! grep -q "^  selected: $transport " "$home/gateway.log"; then
    echo "relay.sh: gateway $name did not start cleanly on $transport; its output ($home/gateway.log):" >&2
    tail -n 30 "$home/gateway.log" >&2
    return 1
  fi
  wait_listening "${echo_port[$name]}" "$pid" "$home/gateway.log"
}

declare -A broken
for c in $contenders; do
  case $c in
    direct)
      redis_port[$c]=${upstream_redis:-}
      echo_port[$c]=$upstream_echo
      ;;
    haproxy-*t) start_haproxy "$c" "${c//[^0-9]/}" || broken[$c]="did not start, see $out/$c.log" ;;
    relay-*-*t)
      transport=${c#relay-}
      transport=${transport%-*}
      threads=${c##*-}
      start_gateway "$c" "$transport" "${threads%t}" || broken[$c]="did not start, see $out/$c/gateway.log"
      ;;
  esac
done

# ---- measuring ----
record() { # round contender row value
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$raw"
}

# Prints the value of an arithmetic expression of numbers (awk, floating point).
calc() {
  awk "BEGIN { print $1 }"
}

# The value of KEY=... in a loadgen RESULT line.
field() {
  echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

proxy_ticks() { # contender: user and system CPU ticks of its proxy, or empty for direct
  local pid=${proxy_pid[$1]:-}
  [ -n "$pid" ] && cpu_ticks "$pid" || true
}

# The proxy's CPU rows of a step: user + system, and user alone, per UNIT (COUNT / PER of them happened).
cpu_rows() { # round contender row unit count per before after
  local round=$1 c=$2 row=$3 unit=$4 count=$5 per=$6 before=$7 after=$8
  [ -n "$before" ] && [ -n "$after" ] && [ "$count" -gt 0 ] || return 0
  local user=$((${after% *} - ${before% *})) system=$((${after#* } - ${before#* }))
  record "$round" "$c" "$row: proxy CPU µs/$unit" "$(calc "$((user + system)) * 1e6 / $clock_ticks / ($count / $per)")"
  record "$round" "$c" "$row: of which user" "$(calc "$user * 1e6 / $clock_ticks / ($count / $per)")"
}

redis_step() { # round contender
  local round=$1 c=$2 before after csv
  before=$(proxy_ticks "$c")
  if ! csv=$(timeout $((60 + requests / 5000)) redis-benchmark -h 127.0.0.1 -p "${redis_port[$c]}" -q -n "$requests" \
    -c 50 -P 16 -t set,get --csv 2>>"$out/redis-benchmark.log"); then
    echo "relay.sh: redis-benchmark through $c failed or timed out (round $round)" >&2
    return 0
  fi
  after=$(proxy_ticks "$c")
  echo "$csv" >>"$out/redis-benchmark.log"
  local test
  for test in SET GET; do
    local line
    line=$(echo "$csv" | tr -d '"' | grep "^$test,") || continue
    record "$round" "$c" "redis $test: requests/s" "$(echo "$line" | cut -d, -f2)"
    record "$round" "$c" "redis $test: p99 ms" "$(echo "$line" | cut -d, -f7)"
  done
  cpu_rows "$round" "$c" "redis SET+GET" request $((2 * requests)) 1 "$before" "$after"
}

# loadgen MODE CONNECTIONS MILLIS BYTES against contender; prints its RESULT line, or nothing on failure.
run_loadgen() {
  local c=$1 mode=$2 conns=$3 millis=$4 bytes=$5 result
  if result=$(timeout $((millis / 1000 + 60)) "$loadgen" "$mode" 127.0.0.1 "${echo_port[$c]}" "$conns" "$millis" \
    "$bytes" 2>>"$out/loadgen.log") && [ "$(field "$result" errors)" = 0 ]; then
    echo "$result"
  else
    echo "relay.sh: loadgen $mode $conns through $c failed: $result (see $out/loadgen.log)" >&2
  fi
}

warm_up() { # contender: echo ping-pong and streaming over 16 connections, not recorded
  run_loadgen "$1" pingpong 16 "$warmup_ms" 64 >/dev/null
  run_loadgen "$1" stream 16 "$warmup_ms" 65536 >/dev/null
}

# One echo step: loadgen MODE (pingpong or stream) over CONNS connections through the contender; records its rows.
echo_step() { # round contender mode conns
  local round=$1 c=$2 mode=$3 conns=$4 before after result elapsed count row unit per
  before=$(proxy_ticks "$c")
  if [ "$mode" = pingpong ]; then
    result=$(run_loadgen "$c" pingpong "$conns" "$step_ms" 64)
  else
    result=$(run_loadgen "$c" stream "$conns" "$step_ms" 65536)
  fi
  after=$(proxy_ticks "$c")
  [ -n "$result" ] || return 0
  elapsed=$(field "$result" elapsed_ns)
  if [ "$mode" = pingpong ]; then
    row="ping-pong $conns conn" unit="round trip" per=1
    count=$(field "$result" ops)
    record "$round" "$c" "$row: round trips/s" "$(calc "$count * 1e9 / $elapsed")"
    record "$round" "$c" "$row: p50 µs" "$(calc "$(field "$result" p50_ns) / 1e3")"
    record "$round" "$c" "$row: p99 µs" "$(calc "$(field "$result" p99_ns) / 1e3")"
  else
    row="streaming $conns conn" unit=MB per=1e6
    count=$(field "$result" bytes)
    record "$round" "$c" "$row: MB/s echoed" "$(calc "$count * 1e3 / $elapsed")"
  fi
  cpu_rows "$round" "$c" "$row" "$unit" "$count" "$per" "$before" "$after"
  record "$round" "$c" "$row: load generator CPU % of a core" "$(calc "$(field "$result" cpu_ns) * 100 / $elapsed")"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a order <<<"$contenders"
for round in $(seq 1 "$rounds"); do
  # Interleaved: each round starts one contender later than the round before.
  n=${#order[@]}
  for i in $(seq 0 $((n - 1))); do
    c=${order[$(((i + round - 1) % n))]}
    [ -z "${broken[$c]:-}" ] || continue
    echo "round $round/$rounds: $c"
    [ "$warmup_ms" -eq 0 ] || warm_up "$c"
    if [ "$redis_ok" = true ]; then redis_step "$round" "$c"; fi
    for conns in $connections; do echo_step "$round" "$c" pingpong "$conns"; done
    for conns in $stream_connections; do echo_step "$round" "$c" stream "$conns"; done
  done
done

# ---- system calls per request ----
strace_table=""
if [ "$strace_requests" -gt 0 ]; then
  strace_table="| proxy | system calls per request | the most frequent, per request |"$'\n'"|---|---:|---|"$'\n'
  for c in $contenders; do
    pid=${proxy_pid[$c]:-}
    [ -n "$pid" ] && [ -z "${broken[$c]:-}" ] || continue
    echo "strace: $c"
    # -p with a process id attaches every thread of that process ("attached with N threads"), -f the later ones.
    strace -c -f -o "$out/strace-$c.txt" -p "$pid" 2>>"$out/strace.log" &
    tracer=$!
    started+=("$tracer")
    sleep 1
    timeout $((120 + strace_requests / 1000)) redis-benchmark -h 127.0.0.1 -p "${redis_port[$c]}" -q \
      -n "$strace_requests" -c 50 -P 16 -t set,get --csv >>"$out/redis-benchmark.log" 2>&1 \
      || echo "relay.sh: redis-benchmark under strace failed for $c" >&2
    kill -INT "$tracer" 2>/dev/null || true
    wait "$tracer" 2>/dev/null || true
    per_request=$(awk -v n=$((2 * strace_requests)) '$NF == "total" { printf "%.2f", $4 / n }' "$out/strace-$c.txt")
    top=$(awk -v n=$((2 * strace_requests)) '
      /^-/ { dashes++; next }
      dashes == 1 && $NF != "total" && $4 ~ /^[0-9]+$/ { printf "%s %.3f\n", $NF, $4 / n }' "$out/strace-$c.txt" \
      | sort -k2,2gr | head -n 5 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
    strace_table+="| $c | ${per_request:-n/a} | ${top:-n/a} |"$'\n'
  done
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the report ----
report=$results/results-$stamp.md
{
  echo "# Relay against HAProxy, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "$(nproc) CPUs; load average $load_start at the start, $load_end at the end."
  echo "$rounds round(s); redis-benchmark -n $requests -c 50 -P 16 -t set,get; echo steps of $step_ms ms after"
  echo "$warmup_ms ms of warm-up; PROXY header to the echo server: $echo_proxy; idle timeout $idle_timeout_ms ms,"
  echo "at most $max_connections connections; gateway on $("$jdk/bin/java" -version 2>&1 | head -n 1)"
  echo "with $gateway_opts; $(haproxy -v 2>/dev/null | head -n 1 | cut -d' ' -f1-3);"
  echo "$(redis-server --version 2>/dev/null | cut -d' ' -f1-3)."
  echo
  echo "Medians over the rounds. In parentheses: the relay ÷ HAProxy of the same thread count, median of the rounds"
  echo "and range. Above 1 is better for rates, below 1 for latency and CPU."
  echo
  "$jdk/bin/java" -cp "$here/target/classes" io.conduit.benchmarks.RelayReport "$raw" $contenders
  for c in "${!broken[@]}"; do echo; echo "$c: ${broken[$c]}"; done
  if [ -n "$strace_table" ]; then
    echo
    echo "System calls per request (strace -c -f, every thread, redis-benchmark -n $strace_requests SET and GET):"
    echo
    printf '%s' "$strace_table"
  fi
} >"$report"
cp "$report" "$out/results.md"
cat "$report"
echo
echo "Written to $report (raw values and logs: $out)"
