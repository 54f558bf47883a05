-- GET random keys that were never written ("m<n>"): every answer should be 404.
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local keys = tonumber(os.getenv("KEYS") or "1000000")
function init(args) math.randomseed(os.time()) end
function request()
  return wrk.format("GET", "/v0/entity?id=m" .. math.random(0, keys - 1))
end
function response(status, headers, body) count(status) end
