-- Walks keys 0..KEYS-1 once, in order, with METHOD=PUT (prefill, 100-byte values)
-- or METHOD=GET (verify). The one wrk thread hands key i to whichever of its
-- connections is free next, so each key goes out exactly once; after the last
-- key it wraps around (harmless re-PUTs/re-GETs of the first keys) only while the
-- last responses drain. Once KEYS + CONNS responses are in, it stops wrk with
-- SIGINT so the run ends early; wrk's -d is only the upper bound.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local keys = tonumber(os.getenv("KEYS") or "1000000")
local conns = tonumber(os.getenv("CONNS") or "64")
local method = os.getenv("METHOD") or "PUT"
local body = nil
if method == "PUT" then body = string.rep("v", tonumber(os.getenv("VALUE_SIZE") or "100")) end
local nextkey, got, stopping = 0, 0, false
function request()
  local k = nextkey % keys
  nextkey = nextkey + 1
  return wrk.format(method, "/v0/entity?id=" .. k, nil, body)
end
function response(status, headers, b)
  count(status)
  got = got + 1
  if got >= keys + conns and not stopping then
    stopping = true
    os.execute("kill -INT $PPID")   -- the shell's parent is wrk
  end
end
