#!/usr/bin/env bash
# An identity map on a 3-node cluster beside the plain range scan: starts `bin/ringbase cluster --nodes 3`
# (one process, replication factor 3) from TREE on ports PORT..PORT+2 with its data in a temporary
# directory, writes 20,000 keys of 1 KiB through node 1 (16 curl processes), uploads the identity module,
# then three times times a scan (GET /v0/entities) and a map (POST /v0/process, with EXTRA appended to
# its query, e.g. "&spread=replicas") through node 1 with curl. Only 127.0.0.1 is contacted; everything
# it started is stopped at the end.
#   bench/process-cluster-bench.sh TREE PORT [EXTRA]
set -euo pipefail
tree=$(cd "$1" && pwd); port=$2; extra=${3:-}
d=$(mktemp -d)
cd "$tree"
bin/ringbase cluster --nodes 3 --base-port "$port" --data-dir "$d/data" > "$d/out" 2> "$d/err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$d"' EXIT
for _ in $(seq 1 300); do [ "$(grep -c "http://" "$d/out" 2>/dev/null)" -ge 3 ] && break; sleep 0.2; done
head -c 1024 /dev/urandom | base64 -w0 | head -c 1024 > "$d/val"
seq -w 1 20000 | xargs -P 16 -I{} curl -s -o /dev/null -X PUT --data-binary @"$d/val" "http://127.0.0.1:$port/v0/entity?id=k{}"
curl -s -o /dev/null -w "upload %{http_code}\n" -X PUT \
  --data-binary @"$tree/ringbase-server/src/test/resources/functions/identity.wasm" \
  "http://127.0.0.1:$port/v0/functions/identity"
for _ in 1 2 3; do
  curl -s -o "$d/scan" -w "scan %{size_download} B %{time_total} s\n" "http://127.0.0.1:$port/v0/entities?start=k"
  curl -s -o "$d/map" -w "map %{size_download} B %{time_total} s\n" -X POST \
    "http://127.0.0.1:$port/v0/process?fn=identity&start=k&mode=map$extra"
done
tail -c 200 "$d/map"; echo
