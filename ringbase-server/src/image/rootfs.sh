#!/usr/bin/env bash
# The container image's root file system beside the application (docs/operations.md, "Container image"):
# what Jib's scratch base lacks, built from the build machine and handed to Jib as an extra directory.
#   rootfs.sh JAVA_HOME OUT VERSION
# writes into OUT (emptied first):
#   opt/java/                 a Java runtime made by JAVA_HOME's jlink with the modules below only
#   opt/ringbase/bin/         the entrypoint (src/image/entrypoint) and the node's JVM flags (bin/ringbase-jvm.sh)
#   bin/bash, usr/bin/nproc   what the entrypoint runs: the flags depend on the CPUs the container may use
#   lib/x86_64-linux-gnu/, lib64/ld-linux-x86-64.so.2
#                             the build machine's shared libraries that these and the node's native code
#                             (Netty's epoll transport, lz4-java, RocksDB) link against, found by ldd
#   etc/passwd, etc/group     root and the user the node runs as, ringbase (10001:10001)
#   etc/nsswitch.conf         host names from /etc/hosts, then DNS (the runtime writes both files)
#   tmp/, data/               the JVM's and Netty's temporary files; the data directory (a volume)
# Needs ldd, and the dependencies in ringbase-server/target/lib (the package phase copies them first).
# Exits non-zero, naming what failed, if jlink fails or a library cannot be found.
set -euo pipefail
java_home="$1" out="$2" version="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(cd "$here/../.." && pwd)"
# jdeps --print-module-deps on target/ringbase.jar and target/lib/*.jar gives java.base, java.naming,
# java.net.http, java.sql, jdk.jfr, jdk.management, jdk.unsupported and java.desktop (Jackson's optional
# java.beans annotations only: left out, 10 MB). java.logging and java.xml: Netty's and Logback's
# optional uses. jdk.jcmd: jcmd, jstack and jmap for an operator inside the container.
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.jfr
modules=$modules,jdk.management,jdk.unsupported,jdk.jcmd,jdk.crypto.cryptoki,jdk.zipfs

rm -rf "$out"
mkdir -p "$out/opt" "$out/opt/ringbase/bin" "$out/bin" "$out/usr/bin" "$out/etc" "$out/tmp" "$out/data"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-6 --output "$out/opt/java"
cp "$here/entrypoint" "$out/opt/ringbase/bin/entrypoint"
cp "$module/../bin/ringbase-jvm.sh" "$out/opt/ringbase/bin/ringbase-jvm.sh"
cp "$(command -v bash)" "$out/bin/bash"
cp "$(command -v nproc)" "$out/usr/bin/nproc"

# The natives the node loads from its jars (each unpacks its own to /tmp at run time): only ldd needs them here
natives="$(mktemp -d)"
trap 'rm -rf "$natives"' EXIT
(cd "$natives" && for jar in "$module"/target/lib/netty-transport-native-epoll-*.jar \
    "$module"/target/lib/lz4-java-*.jar "$module"/target/lib/rocksdbjni-*.jar; do
  "$java_home/bin/jar" xf "$jar"
done)
elves=("$out/bin/bash" "$out/usr/bin/nproc")
while IFS= read -r -d '' f; do elves+=("$f"); done < <(find "$out/opt/java" -type f \( -name '*.so' -o -perm -u+x \) -print0)
while IFS= read -r -d '' f; do elves+=("$f"); done < <(find "$natives" -type f -name '*.so' \
  \( -path '*linux*x86_64*' -o -path '*linux/amd64*' -o -name 'librocksdbjni-linux64.so' \) -print0)
mkdir -p "$out/lib/x86_64-linux-gnu" "$out/lib64"
libs="$(for f in "${elves[@]}"; do
  if file_out="$(ldd "$f" 2>/dev/null)"; then printf '%s\n' "$file_out"; fi
done | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | sort -u)"
for lib in $libs; do
  case "$lib" in
    "$out"/*) ;; # the runtime's own libraries (libjvm.so, libjava.so, ...)
    *) cp -L "$lib" "$out/lib/x86_64-linux-gnu/$(basename "$lib")" ;;
  esac
done
if ldd "${elves[@]}" 2>/dev/null | grep -q 'not found'; then
  ldd "${elves[@]}" 2>/dev/null | grep 'not found' | sort -u >&2
  echo "rootfs.sh: the libraries above are missing on the build machine" >&2
  exit 1
fi
cp -L /lib64/ld-linux-x86-64.so.2 "$out/lib64/ld-linux-x86-64.so.2"

printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'ringbase:x:10001:10001:Ringbase:/data:/bin/bash' >"$out/etc/passwd"
printf '%s\n' 'root:x:0:' 'ringbase:x:10001:' >"$out/etc/group"
printf '%s\n' 'hosts: files dns' >"$out/etc/nsswitch.conf"
printf '%s\n' "$version" >"$out/opt/ringbase/VERSION"
