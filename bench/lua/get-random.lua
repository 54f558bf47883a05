-- GET random keys in [0, KEYS): every one was written by the prefill, so anything
-- but 200 is a failure of the bench or of the server.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local keys = tonumber(os.getenv("KEYS") or "1000000")
function init(args) math.randomseed(os.time()) end
function request()
  return wrk.format("GET", "/v0/entity?id=" .. math.random(0, keys - 1))
end
function response(status, headers, body) count(status) end
