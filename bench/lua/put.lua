-- PUT 100-byte values (VALUE_SIZE to change) under fresh sequential keys "p<n>",
-- so every request inserts a new key into the node (KEY_PREFIX changes the "p").
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local body = string.rep("v", tonumber(os.getenv("VALUE_SIZE") or "100"))
local prefix = os.getenv("KEY_PREFIX") or "p"
local n = 0
function request()
  n = n + 1
  return wrk.format("PUT", "/v0/entity?id=" .. prefix .. n, nil, body)
end
function response(status, headers, body) count(status) end
