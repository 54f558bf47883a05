-- Shared by every bench script: counts responses by status in each wrk thread
-- and prints the totals in done(). Scripts load it with dofile() and call
-- count(status) from response().
threads = {}

function setup(thread)
  table.insert(threads, thread)
end

counts = {}
function count(status)
  counts[status] = (counts[status] or 0) + 1
end

-- Prints "status NNN: count" lines and a machine-readable summary line:
--   STATUS total=<n> 2xx=<n> 200=<n> 201=<n> 404=<n> other=<n>
function report_counts()
  local total, by = 0, {}
  for _, t in ipairs(threads) do
    local c = t:get("counts")
    for s, n in pairs(c) do
      by[s] = (by[s] or 0) + n
      total = total + n
    end
  end
  local keys = {}
  for s in pairs(by) do table.insert(keys, s) end
  table.sort(keys)
  local ok2xx, other = 0, 0
  for _, s in ipairs(keys) do
    io.write(string.format("  status %d: %d\n", s, by[s]))
    if s >= 200 and s < 300 then ok2xx = ok2xx + by[s] end
  end
  io.write(string.format("STATUS total=%d 2xx=%d 200=%d 201=%d 404=%d non2xx=%d\n",
    total, ok2xx, by[200] or 0, by[201] or 0, by[404] or 0, total - ok2xx))
end

-- Latency summary line in microseconds, parsed by http-bench.sh.
function report_latency(summary, latency)
  local secs = summary.duration / 1e6
  io.write(string.format("RESULT reqs=%d secs=%.3f rps=%.1f p50=%d p90=%d p99=%d max=%d errors=%d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.timeout))
end

function done(summary, latency, requests)
  report_counts()
  report_latency(summary, latency)
end
