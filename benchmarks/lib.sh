# Shell functions shared by the benchmark scripts (run.sh, relay.sh); sourced, never run.

# Raises the open-file limit towards $1 (soft and, where allowed, hard); prints nothing.
raise_open_files() {
  local want=$1
  if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$want" ]; then
    ulimit -Hn "$want" 2>/dev/null || true
    ulimit -n "$want" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  fi
}

# The newest JDK under /usr/lib/jvm (by the JAVA_VERSION of its release file), else JAVA_HOME, else the `java` on the
# PATH.
newest_jdk() {
  local best="" best_feature=0 dir version feature
  for dir in /usr/lib/jvm/*/; do
    dir=${dir%/}
    [ -L "$dir" ] && continue
    [ -x "$dir/bin/java" ] && [ -f "$dir/release" ] || continue
    version=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$dir/release")
    feature=${version%%[.+-]*}
    [ "$feature" = 1 ] && feature=$(echo "$version" | cut -d. -f2)
    if [ -n "$feature" ] && [ "$feature" -gt "$best_feature" ]; then best=$dir; best_feature=$feature; fi
  done
  echo "${best:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}"
}
