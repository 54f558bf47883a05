-- Walks keys 0..KEYS-1 once, in order, with METHOD=PUT (prefill, VALUE_SIZE-byte values)
-- or METHOD=GET (verify). wrk's one thread (-t1) hands key i to whichever of its
-- connections is free next, so each key is requested exactly once.
-- After the last key, connections still need something to send while the last
-- answers drain; these "overflow" requests are read-only GETs of key 0 (200) and
-- are counted apart. The run ends when
--   PUT: every PUT has been answered (answers other than 200/404 reach KEYS);
--   GET: KEYS + CONNS answers are in (a walk GET that never came back would be
--        missing from the 200 count, which the caller checks against KEYS);
-- then it stops wrk with a delayed SIGINT (system() ignores SIGINT while it waits,
-- so the kill must come from a background child). wrk's -d is only the upper bound.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local keys = tonumber(os.getenv("KEYS") or "1000000")
local conns = tonumber(os.getenv("CONNS") or "64")
local method = os.getenv("METHOD") or "PUT"
local body = nil
if method == "PUT" then body = string.rep("v", tonumber(os.getenv("VALUE_SIZE") or "100")) end
walked, overflow = 0, 0
local got, reads, stopping = 0, 0, false
-- wrk 4.1 (Debian) calls request() once when the thread starts and never sends that
-- request (seen here: the first key of a walk was never written). So the first call
-- returns a throw-away read, and the walk starts with the second.
local first = true
function request()
  if first then
    first = false
    return wrk.format("GET", "/v0/entity?id=0")
  end
  if walked < keys then
    local k = walked
    walked = walked + 1
    return wrk.format(method, "/v0/entity?id=" .. k, nil, body)
  end
  overflow = overflow + 1
  return wrk.format("GET", "/v0/entity?id=0")
end
function response(status, headers, b)
  count(status)
  got = got + 1
  if status == 200 or status == 404 then reads = reads + 1 end
  if stopping then return end
  if (method == "PUT" and got - reads >= keys) or (method ~= "PUT" and got >= keys + conns) then
    stopping = true
    os.execute("(sleep 0.2; kill -INT $PPID) >/dev/null 2>&1 &")   -- the shell's parent is wrk
  end
end
function done(summary, latency, requests)
  local w, o = 0, 0
  for _, t in ipairs(threads) do w = w + t:get("walked"); o = o + t:get("overflow") end
  io.write(string.format("WALK method=%s walked=%d overflow=%d\n", method, w, o))
  report_counts()
  report_latency(summary, latency)
end
