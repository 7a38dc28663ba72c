#!/usr/bin/env bash
# Starts a fleet on free loopback ports: one redis-server, two `luahook
# serve` replicas (a and b) sharing it as their Lua store, and HAProxy in
# front, using haproxy.cfg and luahook.toml from this folder. Prints the
# commands to try, then waits until Ctrl-C (or until one of them exits)
# and stops everything.
#
#   examples/fleet/run.sh           # build luahook, run until Ctrl-C
#   examples/fleet/run.sh smoke     # send a few calls through HAProxy and stop
#
# LUAHOOK=/path/to/luahook uses that binary instead of building one.
# FLEET_STORE=memory leaves Redis out: each replica keeps its own store
# (counts are then per replica), to try the load balancer alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/luahook-fleet.XXXXXX")
pids=()

stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

# free_port prints a loopback port nothing listens on.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

# wait_ready URL: until URL answers 200, for at most 10 s.
wait_ready() {
  for _ in $(seq 100); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "run.sh: $1 did not become ready; logs in $work" >&2
  tail -n 20 "$work"/*.err >&2 || true
  return 1
}

luahook=${LUAHOOK:-}
if [ -z "$luahook" ]; then
  luahook="$work/luahook"
  (cd "$root" && go build -o "$luahook" ./cmd/luahook)
fi
for tool in haproxy curl; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is needed (apt-get install $tool)" >&2; exit 1; }
done

lb=127.0.0.1:$(free_port)
a=127.0.0.1:$(free_port)
b=127.0.0.1:$(free_port)

if [ "${FLEET_STORE:-redis}" = memory ]; then
  : > "$work/luahook.toml"
else
  command -v redis-server >/dev/null || { echo "run.sh: redis-server is needed (apt-get install redis-server)" >&2; exit 1; }
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    >"$work/redis.out" 2>"$work/redis.err" &
  pids+=($!)
  sed "s/^address = .*/address = \"127.0.0.1:$redis_port\"/" "$here/luahook.toml" >"$work/luahook.toml"
fi

for r in a b; do
  addr=${!r}
  # --drain-delay: HAProxy checks every 200 ms and needs 2 failures
  # (haproxy.cfg), so 1 s leaves it time to stop sending before the replica
  # stops accepting.
  "$luahook" --dir "$root/hooks.d" --config "$work/luahook.toml" serve \
    --addr "$addr" --instance-id "$r" --drain-delay 1s --decision-log "$work/decisions-$r.jsonl" \
    >"$work/$r.out" 2>"$work/$r.err" &
  pids+=($!)
done
for r in a b; do wait_ready "http://${!r}/readyz"; done

LUAHOOK_LB_ADDR=$lb LUAHOOK_A_ADDR=$a LUAHOOK_B_ADDR=$b \
  haproxy -db -f "$here/haproxy.cfg" >"$work/haproxy.out" 2>"$work/haproxy.err" &
pids+=($!)
wait_ready "http://$lb/readyz"

call() { curl -sS -XPOST "http://$lb/" -H 'Content-Type: application/json' -d "$1"; }

if [ "${1:-}" = smoke ]; then
  call '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"},"sessionId":"s1"}'
  call '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"sessionId":"s1"}'
  mkdir -p "$work/app" && echo "lockfileVersion: '9.0'" >"$work/app/pnpm-lock.yaml" # a pnpm project
  call '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad"},"sessionId":"s1","cwd":"'"$work/app"'"}'
  call '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"sessionId":"s1"}'
  sleep 0.3 # the decision logs write in batches
  echo "decisions by replica:"
  for r in a b; do echo "  $r: $(wc -l <"$work/decisions-$r.jsonl")"; done
  exit 0
fi

cat <<MSG
luahook fleet running (logs and decision logs in $work):
  HAProxy      http://$lb/          (agents point here)
  replica a    http://$a/readyz  http://$a/metrics
  replica b    http://$b/readyz  http://$b/metrics
${redis_port:+  redis        127.0.0.1:$redis_port
}
Try:
  curl -s -XPOST http://$lb/ -d '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"},"sessionId":"s1"}'
  for i in \$(seq 70); do curl -s -XPOST http://$lb/ -d '{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"sessionId":"s1"}'; done | sort | uniq -c
  tail -f $work/decisions-a.jsonl $work/decisions-b.jsonl
  kill -TERM ${pids[-3]}   # replica a drains; HAProxy moves everything to b
Ctrl-C stops everything.
MSG
wait -n
