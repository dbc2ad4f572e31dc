-- wrk script for bench/*.sh: one request per call, cycling through the lines of $LINES (optional).
-- env: METHOD (POST), REQ_PATH, CONTENT_TYPE (application/x-www-form-urlencoded), AUTH (Authorization
--      header, optional), LINES (file; each line is a body, or a token with FORM_FIELD=token),
--      FORM_FIELD (makes the body "<field>=<line>"), OK_PATTERN (substring of a good answer; empty =
--      any 200), RESULT_FILE (the JSON result line is appended there in done()).
-- Run with -t 1 (one cursor; the counters are read from the single thread).
lines = {}
idx = 0
ok = 0; notok = 0; non200 = 0
threads = {}

function setup(thread) table.insert(threads, thread) end

function init(args)
  local file = os.getenv("LINES") or ""
  local field = os.getenv("FORM_FIELD") or ""
  if #file > 0 then
    for line in assert(io.open(file, "r")):lines() do
      if #line > 0 then lines[#lines + 1] = (#field > 0) and (field .. "=" .. line) or line end
    end
  end
  wrk.method = os.getenv("METHOD") or "POST"
  wrk.path = os.getenv("REQ_PATH") or "/"
  if #lines > 0 then wrk.headers["Content-Type"] = os.getenv("CONTENT_TYPE") or "application/x-www-form-urlencoded" end
  local auth = os.getenv("AUTH") or ""
  if #auth > 0 then wrk.headers["Authorization"] = auth end
  okpat = os.getenv("OK_PATTERN") or ""
end

function request()
  if #lines == 0 then return wrk.format() end
  idx = idx + 1
  return wrk.format(nil, nil, nil, lines[((idx - 1) % #lines) + 1])
end

function response(status, headers, body)
  if status ~= 200 then non200 = non200 + 1
  elseif #okpat == 0 or (body and string.find(body, okpat, 1, true)) then ok = ok + 1
  else notok = notok + 1 end
end

function done(summary, latency, requests)
  local t, dur, e = threads[1], summary.duration / 1e6, summary.errors
  local line = string.format(
    '{"requests":%d,"duration_s":%.3f,"rps":%.2f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.2f,' ..
    '"ok":%d,"not_ok":%d,"non200":%d,"err_connect":%d,"err_read":%d,"err_write":%d,"err_timeout":%d}',
    summary.requests, dur, summary.requests / dur, latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, t:get("ok"), t:get("notok"), t:get("non200"),
    e.connect, e.read, e.write, e.timeout)
  print(line)
  local rf = os.getenv("RESULT_FILE")
  if rf and #rf > 0 then local f = io.open(rf, "a"); f:write(line .. "\n"); f:close() end
end
