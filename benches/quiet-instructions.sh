#!/usr/bin/env bash
# Instructions of a quiet PreToolUse and of a guard deny, counted by callgrind (which
# does not depend on the machine's load): a fresh project with the example config, a
# SessionStart and 20 quiet calls first, then one call of each under valgrind.
#   benches/quiet-instructions.sh [NAGGER_BINARY]    (default: this checkout's release build)
# TRUST=1 confirms the config with `nagger trust` first (answered on a pseudo-terminal),
# as a user would after writing it; without it the example config's `allow` entry waits
# for confirmation and every run applies the trusted baseline.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
    for candidate in "$repo"/target/*/release/nagger "$repo"/target/release/nagger; do
        if [ -x "$candidate" ]; then bin=$candidate; break; fi
    done
fi
[ -x "$bin" ] || { echo "no nagger binary: cargo build --release first, or pass its path" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
p=$work/proj; mkdir -p "$p/.claude-nagger"
cp "$repo/docs/example-config.toml" "$p/.claude-nagger/config.toml"
cd "$p"; git init -q .; touch "$p/t.jsonl"
export CLAUDE_PROJECT_DIR=$p
common='"session_id":"s1","transcript_path":"'$p'/t.jsonl","cwd":"'$p'"'
start='{'$common',"hook_event_name":"SessionStart","source":"startup"}'
quiet='{'$common',"hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls -la src"},"tool_use_id":"toolu_1"}'
deny='{'$common',"hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_2"}'
if [ "${TRUST:-}" = 1 ]; then
    # `nagger trust` asks on a terminal for the code it shows: typed back on a pty.
    env -u CLAUDECODE -u AI_AGENT python3 - "$bin" trust >/dev/null <<'PY'
import os, pty, re, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
seen, typed = b"", False
while True:
    if not select.select([fd], [], [], 30)[0]:
        break
    try:
        data = os.read(fd, 1024)
    except OSError:
        break
    if not data:
        break
    seen += data
    code = re.search(rb"type (\d+) and Enter", seen)
    if code and not typed:
        os.write(fd, code.group(1) + b"\n")
        typed = True
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
PY
fi
echo "$start" | "$bin" hook >/dev/null
for _ in $(seq 20); do echo "$quiet" | "$bin" hook >/dev/null; done
for name in quiet deny; do
    echo "${!name}" > "$work/in.json"
    NAGGER_NO_DEADLINE=1 valgrind --tool=callgrind --callgrind-out-file="$work/$name.out" "$bin" hook \
        < "$work/in.json" >/dev/null 2>"$work/$name.err"
    # Under valgrind a run is tens of times slower: the hook's deadline is off
    # (NAGGER_NO_DEADLINE=1); a binary without that switch can still reach it on a busy
    # machine, and a count of a run cut short means nothing.
    if grep -q 'no answer within' "$work/$name.err"; then
        echo "$name: the run reached its deadline under valgrind (machine too busy); run again" >&2
        exit 1
    fi
    echo "$name $(grep -o 'Collected : [0-9]*' "$work/$name.err" | grep -o '[0-9]*')"
done
