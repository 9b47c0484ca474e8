#!/usr/bin/env bash
# The system packages Airlock's build and tests use, in one command (Debian/Ubuntu:
# apt-get; macOS: Homebrew, best effort). .ci/run uses it too, so the README's test line
# and CI install the same things.
#   sudo scripts/install-system-deps.sh          install what is missing
#   scripts/install-system-deps.sh --check       list what is missing; exit 1 if anything is
# Tests that need a missing tool skip with the reason instead of failing.
set -uo pipefail
check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# command:package — the build (a C/C++ toolchain for better-sqlite3 and the peer-credentials
# addon, cc for the native Claude Code hook, python3 for node-gyp), then what the tests drive for real.
pairs=(
  cc:gcc g++:g++ make:make python3:python3 git:git curl:curl
  ssh:openssh-client sshd:openssh-server bwrap:bubblewrap tmux:tmux sqlite3:sqlite3
  chromium:chromium socat:socat
)
need=()
for pair in "${pairs[@]}"; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$pkg")
done
# The SSH tests run paramiko with /usr/bin/python3 (the system one, where apt installs it),
# not whatever python3 comes first on PATH.
if [ "$(uname -s)" = Linux ] && ! /usr/bin/python3 -c 'import paramiko' 2>/dev/null; then
  need+=(python3-paramiko)
fi

if [ ${#need[@]} -eq 0 ]; then
  echo "install-system-deps: nothing missing"
  exit 0
fi
echo "install-system-deps: missing: ${need[*]}"
[ "$check_only" = 1 ] && exit 1

if command -v apt-get >/dev/null 2>&1; then
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq "${need[@]}"
elif command -v brew >/dev/null 2>&1; then
  # macOS ships ssh, sshd, make, git, curl and sqlite3; bubblewrap is Linux-only (the
  # sandbox tests skip). Chromium: any Chrome works through AIRLOCK_CHROMIUM.
  mac=()
  for p in "${need[@]}"; do
    case "$p" in
      socat|tmux|python3) mac+=("$p") ;;
    esac
  done
  [ ${#mac[@]} -eq 0 ] || brew install "${mac[@]}"
  python3 -m pip install --user paramiko >/dev/null 2>&1 || true
else
  echo "install-system-deps: no apt-get or brew here; install these yourself: ${need[*]}" >&2
  exit 1
fi
