#!/usr/bin/env bash
# The guard's corpora (tests/fixtures/guard/*.txt) through a real guard binary, one call
# per line, in a throwaway project: per corpus, how many destructive lines pass, how many
# `deny` lines are only asked about, how many harmless lines are refused or asked about,
# and the list of those misses.
#
#   benches/guard-corpus.sh [--guard nagger|safety-net|dcg] [--quiet] [BIN] [CORPUS...]
#
# --guard nagger (the default) runs `BIN check --tool T --input JSON` (BIN defaults to the
# release build); the exit code is the answer: 0 passes, 3 refuses, 4 asks.
# --guard safety-net and --guard dcg run another guard as a Claude Code PreToolUse hook,
# fed the hook's JSON on stdin: `BIN hook --coding-cli` for cc-safety-net (BIN defaults to
# `cc-safety-net`), `BIN` with DCG_NO_UPDATE_CHECK=1 for dcg (default `dcg`); a
# `permissionDecision` of deny or ask in its output (or exit 2) is the answer. Neither is
# installed by this repository. --quiet prints the figures without the list of misses.
# Corpus format: see the header of each file (`deny|ask|pass CMD`, or a bare CMD for the
# harmless corpora; `@Tool path`, `@Glob pattern [path]`, `⏎` for a newline).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
guard=nagger
quiet=0
bin=
corpora=()
while [ $# -gt 0 ]; do
  case "$1" in
    --guard) guard=$2; shift 2 ;;
    --guard=*) guard=${1#--guard=}; shift ;;
    --quiet) quiet=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *.txt) corpora+=("$(realpath "$1")"); shift ;;
    *) bin=$1; shift ;;
  esac
done
case "$guard" in
  nagger) bin=${bin:-$here/target/x86_64-unknown-linux-gnu/release/nagger} ;;
  safety-net) bin=${bin:-cc-safety-net} ;;
  dcg) bin=${bin:-dcg}; export DCG_NO_UPDATE_CHECK=1 ;;
  *) echo "unknown guard: $guard" >&2; exit 2 ;;
esac
command -v "$bin" > /dev/null || { echo "no such program: $bin" >&2; exit 2; }
if [ ${#corpora[@]} -eq 0 ]; then
  corpora=("$here"/tests/fixtures/guard/{destructive,harmless,self_protection,everyday,families}.txt)
fi

# A project named `proj` (the corpora's `cd .. && rm -rf proj` cases name it) in a
# throwaway folder, with a home of its own so no user configuration takes part.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
proj=$tmp/proj
mkdir -p "$proj/src" "$tmp/home"
git -C "$proj" init -q
export HOME=$tmp/home CLAUDE_PROJECT_DIR=$proj
cd "$proj"

# The tool name and tool_input JSON a corpus call stands for.
tool_call() {
  local text=$1 tool rest pattern path
  if [[ $text == @* ]]; then
    tool=${text%% *}; tool=${tool#@}; rest=${text#* }
    case "$tool" in
      Glob)
        pattern=${rest%% *}; path=
        [[ $rest == *" "* ]] && path=${rest#* }
        if [ -n "$path" ]; then
          jq -cn --arg p "$pattern" --arg d "$path" '{pattern: $p, path: $d}'
        else
          jq -cn --arg p "$pattern" '{pattern: $p}'
        fi ;;
      Grep) jq -cn --arg p "$rest" '{pattern: ".", path: $p}' ;;
      NotebookEdit) jq -cn --arg p "$rest" '{notebook_path: $p, new_source: ""}' ;;
      *) jq -cn --arg p "$rest" '{file_path: $p}' ;;
    esac
    echo "$tool"
  else
    jq -cn --arg c "$text" '{command: $c}'
    echo Bash
  fi
}

# The guard's answer to one call: pass, deny, ask or error.
answer() {
  local tool=$1 input=$2 out code=0
  case "$guard" in
    nagger)
      "$bin" check --project "$proj" --tool "$tool" --input "$input" > /dev/null 2>&1 || code=$?
      case $code in 0) echo pass ;; 3) echo deny ;; 4) echo ask ;; *) echo "error($code)" ;; esac ;;
    *)
      local payload
      payload=$(jq -cn --arg t "$tool" --argjson i "$input" --arg cwd "$proj" \
        '{session_id: "corpus", transcript_path: "/dev/null", cwd: $cwd,
          permission_mode: "default", hook_event_name: "PreToolUse",
          tool_name: $t, tool_input: $i}')
      out=$(printf '%s' "$payload" | hook_command 2> /dev/null) || code=$?
      if [ "$code" -eq 2 ]; then echo deny; return; fi
      if [ "$code" -ne 0 ]; then echo "error($code)"; return; fi
      local d
      d=$(printf '%s' "$out" | jq -r '.hookSpecificOutput.permissionDecision // .decision // empty' 2> /dev/null || true)
      case "$d" in deny|block) echo deny ;; ask) echo ask ;; *) echo pass ;; esac ;;
  esac
}

hook_command() {
  case "$guard" in
    safety-net) "$bin" hook --coding-cli ;;
    dcg) "$bin" ;;
  esac
}

for corpus in "${corpora[@]}"; do
  name=$(basename "$corpus")
  labelled=0
  first=$(grep -m 1 -v -e '^#:' -e '^[[:space:]]*$' "$corpus" || true)
  case "${first%% *}" in deny|ask|pass) labelled=1 ;; esac
  n_stop=0 n_pass=0 stop_passed=0 deny_asked=0 pass_stopped=0 errors=0
  misses=()
  lineno=0
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    [[ -z ${line//[[:space:]]/} || $line == '#:'* ]] && continue
    want=pass text=$line
    if [ $labelled -eq 1 ]; then want=${line%% *}; text=${line#* }; fi
    text=${text//⏎/$'\n'}
    call=$(tool_call "$text")
    input=$(head -n 1 <<< "$call")
    tool=$(tail -n 1 <<< "$call")
    got=$(answer "$tool" "$input")
    shown=${line#"$want "}
    case "$want:$got" in
      deny:deny|ask:deny|ask:ask|pass:pass) ;;
      deny:ask) deny_asked=$((deny_asked + 1)); misses+=("  line $lineno [deny, got ask] $shown") ;;
      deny:pass|ask:pass) stop_passed=$((stop_passed + 1)); misses+=("  line $lineno [$want, got pass] $shown") ;;
      pass:deny|pass:ask) pass_stopped=$((pass_stopped + 1)); misses+=("  line $lineno [pass, got $got] $shown") ;;
      *) errors=$((errors + 1)); misses+=("  line $lineno [$want, got $got] $shown") ;;
    esac
    if [ "$want" = pass ]; then n_pass=$((n_pass + 1)); else n_stop=$((n_stop + 1)); fi
  done < "$corpus"
  echo "== $name ($guard: $bin)"
  [ $n_stop -gt 0 ] && printf '  destructive lines passed:        %4d / %d\n' $stop_passed $n_stop
  [ $n_stop -gt 0 ] && printf '  deny lines only asked about:     %4d / %d\n' $deny_asked $n_stop
  [ $n_pass -gt 0 ] && printf '  harmless lines refused or asked: %4d / %d\n' $pass_stopped $n_pass
  [ $errors -gt 0 ] && printf '  errors:                          %4d\n' $errors
  if [ $quiet -eq 0 ] && [ ${#misses[@]} -gt 0 ]; then
    echo "  misses:"
    printf '%s\n' "${misses[@]}"
  fi
done
