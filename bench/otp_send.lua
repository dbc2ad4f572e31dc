-- wrk script: POST /v1/otp/send with a unique e-mail target per request.
-- env: CLIENT_KEY, BUNDLE_ID, RUN (label making targets unique across runs)
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  accepted = 0
  refused = 0
  other = 0
  headers = {
    ["Content-Type"] = "application/json",
    ["X-Tessera-Client-Key"] = os.getenv("CLIENT_KEY"),
    ["X-Tessera-Bundle-Id"] = os.getenv("BUNDLE_ID") or "dev.tessera.demo",
  }
  run = os.getenv("RUN") or "r"
end

function request()
  counter = counter + 1
  local body = string.format('{"sendType":"email","sendTarget":"%s-%d-%d@bench.example.com"}', run, tid, counter)
  return wrk.format("POST", "/v1/otp/send", headers, body)
end

function response(status, headers, body)
  if status == 202 then
    accepted = accepted + 1
  elseif status == 429 then
    refused = refused + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local a, r, o = 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("accepted")
    r = r + t:get("refused")
    o = o + t:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests":%d,"accepted":%d,"refused":%d,"other":%d,"duration_s":%.3f,"rps":%.1f,"p50_ms":%.2f,"p99_ms":%.2f,"socket_errors":%d}\n',
    summary.requests, a, r, o, summary.duration / 1e6, a / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.timeout))
end
