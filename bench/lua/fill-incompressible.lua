-- PUT keys 0..KEYS-1 once each, with values of VALUE_SIZE bytes that LZ4 cannot compress (a pool of
-- 64 random ones), then stop wrk: used by bench/cold-http-bench.sh to make tables larger than the page
-- cache. Run with -t1 (one Lua state hands out the keys). After the last key it sends GET ?id=0 while
-- it waits for wrk to stop, and interrupts wrk one second after the last PUT went out.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local keys = tonumber(os.getenv("KEYS") or "3000000")
local size = tonumber(os.getenv("VALUE_SIZE") or "1024")
local pool = {}
math.randomseed(42)
for i = 1, 64 do
  local t = {}
  for j = 1, size do t[j] = string.char(math.random(0, 255)) end
  pool[i] = table.concat(t)
end
local n = 0
local stopping = false
local first = true
function request()
  -- wrk calls request() once to check the script and may drop that request, so the first call only
  -- reads key 0 (whether it is sent or not) and the keys start with the second
  if first or n >= keys then
    first = false
    return wrk.format("GET", "/v0/entity?id=0")
  end
  local k = n
  n = n + 1
  return wrk.format("PUT", "/v0/entity?id=" .. k, nil, pool[(k % 64) + 1])
end
function response(status, headers, body)
  count(status)
  if n >= keys and not stopping then
    stopping = true
    os.execute("(sleep 1; kill -INT $PPID) >/dev/null 2>&1 &")
  end
end
function done(summary, latency, requests)
  io.write(string.format("FILL keys=%d\n", keys))
  report_counts()
end
