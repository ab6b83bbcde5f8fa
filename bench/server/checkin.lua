-- wrk script: every request is a new check-in with a fresh Idempotency-Key and session key, so
-- each 2xx is a new session committed to the database (nothing is served from the replay store).
-- Reads BENCH_TOKEN, BENCH_USER, BENCH_DEVICE and BENCH_MAJOR from the environment.
local token = os.getenv("BENCH_TOKEN")
local user = os.getenv("BENCH_USER")
local device = os.getenv("BENCH_DEVICE")
local major = os.getenv("BENCH_MAJOR")
local counter = 0
local thread_index = 0
local threads = {}

function setup(thread)
  thread:set("prefix", string.format("%d-%d", os.time(), thread_index))
  thread_index = thread_index + 1
end

function request()
  counter = counter + 1
  local key = string.format("bench-%s-%d", prefix, counter)
  local body = string.format(
    '{"userId":"%s","beacon":{"uuid":"FDA50693-0000-0000-0000-290995101092","major":%s},"ts":"%s","sessionKey":"%s",' ..
    '"source":"automatic","deviceMeta":{"deviceId":"%s","platform":"ios"}}',
    user, major, os.date("!%Y-%m-%dT%H:%M:%SZ"), key, device)
  return wrk.format("POST", "/v1/attendance/check-in", {
    ["Authorization"] = "Bearer " .. token,
    ["Idempotency-Key"] = key,
    ["Content-Type"] = "application/json",
  }, body)
end
