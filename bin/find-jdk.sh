# Locates a JDK >= 25 for Ringbase's scripts (bin/ringbase, ./mvnw).
# POSIX sh, meant to be sourced. Defines ringbase_find_jdk, which sets and
# exports JAVA_HOME to the first JDK >= RINGBASE_MIN_JAVA (default 25) found in
# $JAVA_HOME, then /usr/lib/jvm/*, then the `java` on PATH; or prints what it
# tried to stderr and returns 1.

ringbase_java_major() {
  # Prints the feature version (e.g. 25) of the JDK at $1, or nothing.
  _rb_home=$1
  [ -x "$_rb_home/bin/java" ] && [ -x "$_rb_home/bin/javac" ] || return 0
  if [ -f "$_rb_home/release" ]; then
    _rb_v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$_rb_home/release" | head -n 1)
  else
    _rb_v=$("$_rb_home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  fi
  [ "$_rb_v" = 1 ] && _rb_v=8
  printf '%s' "$_rb_v"
}

ringbase_find_jdk() {
  _rb_min=${RINGBASE_MIN_JAVA:-25}
  _rb_tried=""
  _rb_candidates=""
  [ -n "${JAVA_HOME-}" ] && _rb_candidates="$JAVA_HOME"
  _rb_glob_was_off=0
  case $- in *f*) _rb_glob_was_off=1; set +f ;; esac
  for _rb_d in /usr/lib/jvm/*; do
    [ -d "$_rb_d" ] && _rb_candidates="$_rb_candidates
$_rb_d"
  done
  [ "$_rb_glob_was_off" = 1 ] && set -f
  if command -v java >/dev/null 2>&1; then
    _rb_j=$(command -v java)
    _rb_j=$(readlink -f "$_rb_j" 2>/dev/null || printf '%s' "$_rb_j")
    _rb_candidates="$_rb_candidates
$(dirname "$(dirname "$_rb_j")")"
  fi
  _rb_oldifs=$IFS
  IFS='
'
  for _rb_d in $_rb_candidates; do
    [ -n "$_rb_d" ] || continue
    _rb_v=$(ringbase_java_major "$_rb_d")
    _rb_tried="$_rb_tried  $_rb_d (${_rb_v:-not a JDK})
"
    if [ -n "$_rb_v" ] && [ "$_rb_v" -ge "$_rb_min" ] 2>/dev/null; then
      IFS=$_rb_oldifs
      JAVA_HOME=$_rb_d
      export JAVA_HOME
      return 0
    fi
  done
  IFS=$_rb_oldifs
  {
    echo "ringbase: no JDK $_rb_min or newer found. Looked at:"
    printf '%s' "$_rb_tried"
    echo "Install one (for example Temurin 25) and/or set JAVA_HOME to it."
  } >&2
  return 1
}
