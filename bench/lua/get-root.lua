-- GET / with status counting (the nginx ceiling; same per-response Lua work as the others).
dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
function response(status, headers, body) count(status) end
