#!/usr/bin/env bash
# The load test of docs/BENCHMARKS.md "realm-host serve under wrk": a release `realm-host serve` on
# 127.0.0.1 with a plugin whose function reads one object by key (`get`) or writes one (`put`),
# 1,000 users each with a token, wrk (Debian) with 64 keep-alive connections for reads then writes,
# and memory per idle watch (N WebSocket watches opened by watch_idle.py, the process's RSS before
# and after). Usage: Tests/Load/serve_load.sh [SECONDS] [USERS] [WATCHES]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-15}
users=${2:-1000}
watches=${3:-1000}
bin=${REALM_HOST:-.build/release/realm-host}
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(cat "$work/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/plugins/servebench" "$work/data"
cat > "$work/plugins/servebench/plugin.lua" <<'LUA'
return {
  name = "servebench", schema = {
    { name = "Item", primaryKey = "id", properties = { { name = "id", type = "int" }, { name = "value", type = "string" } } },
  },
  api = { Item = "readwrite" },
  functions = {
    get = function(realm, args) return realm:object("Item", args.id) end,
    put = function(realm, args) return realm:objects("Item"):append{ id = args.id, value = args.value } end,
  },
}
LUA
cat > "$work/data/host.lua" <<LUA
return { cacheSize = $((users + 64)), serve = { userQueue = 1000 } }
LUA
"$bin" serve --data "$work/data" --plugins "$work/plugins" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 \
  > "$work/out" 2> "$work/log" &
echo $! > "$work/pid"
for _ in $(seq 100); do [ -s "$work/out" ] && break; sleep 0.1; done
port=$(sed -E 's/.*127\.0\.0\.1:([0-9]+) \(admin.*/\1/' "$work/out")
pid=$(cat "$work/pid")
# One token per user (signed by the development secret the host created), one object each.
python3 - "$work/data/auth-secret" "$users" > "$work/tokens.lua" <<'PY'
import base64, hashlib, hmac, json, sys, time
secret = open(sys.argv[1]).read().strip().encode()
def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
print("tokens = {")
for u in range(int(sys.argv[2])):
    body = b64(json.dumps({"sub": f"u{u}", "exp": int(time.time()) + 7200}).encode())
    sig = b64(hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest())
    print(f'  "{head}.{body}.{sig}",')
print("}")
PY
cat > "$work/calls.lua" <<'LUA'
dofile(os.getenv("TOKENS"))
local op, counter = os.getenv("OP"), 0
local thread_id = 0
function setup(thread) thread_id = thread_id + 1; thread:set("tid", thread_id) end
function init(args) counter = tid * 100000000 + (tonumber(os.getenv("BASE")) or 0) end
request = function()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local body = op == "get" and '{"id": 1}' or ('{"id": ' .. counter .. ', "value": "v"}')
  return wrk.format("POST", "/v1/functions/" .. op,
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
end
function done(summary, latency, requests)
  io.write(string.format("%s: %d calls in %.1f s = %.0f calls/s, p50 %.2f ms, p99 %.2f ms, errors %d non-2xx %d\n",
    op, summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.errors.status))
end
LUA
# Every user's object, written through the API (also opens every tenant before the timing).
TOKENS="$work/tokens.lua" OP=put BASE=50000000 wrk -t1 -c1 -d1s -s "$work/calls.lua" "http://127.0.0.1:$port" > /dev/null
python3 - "$work/tokens.lua" "$port" <<'PY'
import http.client, re, sys
tokens = re.findall(r'"([^"]+)"', open(sys.argv[1]).read())
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[2]))
for t in tokens:
    c.request("POST", "/v1/objects/Item", body='{"id": 1, "value": "one"}',
              headers={"Authorization": "Bearer " + t, "Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status in (201, 409), r.status
PY
for op in get put; do
  TOKENS="$work/tokens.lua" OP=$op wrk -t2 -c64 -d"${seconds}s" --latency -s "$work/calls.lua" "http://127.0.0.1:$port" \
    | grep -E "calls/s"
done
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
if python3 -c "import websockets" 2>/dev/null; then
  before=$(rss)
  python3 "$(dirname "$0")/watch_idle.py" "$port" "$work/tokens.lua" "$watches" "$pid"
else
  echo "watches: skipped (pip install websockets)"
fi
echo "server RSS at the end: $(rss) KB"
