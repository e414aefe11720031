#!/usr/bin/env bash
# System packages (Debian, apt-get) the tests and the n8n install need, checked once, before the
# first test runs, so a fresh machine does not fail half-way (redis-server used to arrive only
# with the E2E step, after jest had already failed on the Redis cache tests).
#
#   bash scripts/system-deps.sh [test|start]   check, install what is missing as root, print which
#   bash scripts/system-deps.sh --e2e-flags    print the E2E suites this machine can run
#                                              (--browser needs chromium, --queue redis-server,
#                                              --registry chromium and openssl)
#
# As root, missing packages are installed with apt-get. Without root nothing is installed: each
# missing package is named with the checks that will be skipped without it. Under CI (CI set and
# not "false"/"0") a missing package is an error, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

is_ci() {
	case "${CI:-}" in
		'' | 0 | false | FALSE | False) return 1 ;;
		*) return 0 ;;
	esac
}

# One line per dependency: name|apt packages|what needs it.
deps_for() {
	case "$1" in
		test)
			echo "redis-server|redis-server|the Redis verdict-cache tests (test/unit/judges/cache.test.ts) and the queue-mode E2E suite (scripts/queue.js)"
			echo "chromium|chromium|the HTML report screenshot test (test/unit/report/screenshot.test.ts) and the editor E2E suite in headless Chromium (test/browser)"
			echo "build tools|build-essential python3|the first install of the pinned n8n, which builds sqlite3 from source with node-gyp (C/C++ compiler, make, python3)"
			echo "openssl|openssl|the registry E2E suite (test/registry), which makes a CA of its own for the local registry front"
			;;
		start)
			echo "build tools|build-essential python3|the first install of the pinned n8n, which builds sqlite3 from source with node-gyp (C/C++ compiler, make, python3)"
			;;
		*)
			echo "unknown profile $1 (test or start)" >&2
			exit 2
			;;
	esac
}

# The pinned n8n's cache folder (scripts/n8n-install.js decides where it lives).
n8n_dir() {
	node -e "process.stdout.write(require('./scripts/n8n-install').n8nDir())" 2>/dev/null || echo /nonexistent
}

# Where the dependency is, or nothing when it is missing.
where() {
	case "$1" in
		redis-server) command -v redis-server || true ;;
		openssl) command -v openssl || true ;;
		chromium) if [ -x "$CHROMIUM" ]; then echo "$CHROMIUM"; fi ;;
		'build tools')
			# Only the first n8n install builds anything; an installed n8n needs no compiler.
			if [ -f "$(n8n_dir)/.install-complete" ]; then
				echo "not needed: n8n is installed in $(n8n_dir)"
				return
			fi
			local cc cxx mk py
			cc="$(command -v cc || true)"
			cxx="$(command -v c++ || true)"
			mk="$(command -v make || true)"
			py="$(command -v python3 || true)"
			if [ -n "$cc" ] && [ -n "$cxx" ] && [ -n "$mk" ] && [ -n "$py" ]; then echo "$cc, $cxx, $mk, $py"; fi
			;;
	esac
}

if [ "${1:-}" = "--e2e-flags" ]; then
	flags=()
	if [ -n "$(where chromium)" ] || is_ci; then flags+=(--browser); fi
	if [ -n "$(where redis-server)" ] || is_ci; then flags+=(--queue); fi
	if { [ -n "$(where chromium)" ] && [ -n "$(where openssl)" ]; } || is_ci; then flags+=(--registry); fi
	echo "${flags[*]:-}"
	exit 0
fi

profile="${1:-test}"
mapfile -t deps < <(deps_for "$profile")

report() {
	local missing=0 line name pkgs why at
	for line in "${deps[@]}"; do
		IFS='|' read -r name pkgs why <<<"$line"
		at="$(where "$name")"
		if [ -n "$at" ]; then
			echo "  present  $name ($at)"
		else
			echo "  MISSING  $name (apt: $pkgs): needed by $why"
			missing=1
		fi
	done
	return "$missing"
}

echo "== system dependencies ($profile)"
if report; then
	exit 0
fi

want=()
for line in "${deps[@]}"; do
	IFS='|' read -r name pkgs _ <<<"$line"
	if [ -z "$(where "$name")" ]; then
		read -r -a list <<<"$pkgs"
		want+=("${list[@]}")
	fi
done

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "== installing with apt-get (as root): ${want[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# Another apt-get on a shared machine holds the lock for a while: wait for it.
	if apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${want[@]}"; then
		echo "== after apt-get"
		if report; then
			exit 0
		fi
	fi
	why="apt-get could not install ${want[*]}"
elif [ "$(id -u)" != 0 ]; then
	why="not root, so nothing was installed (as root: apt-get install -y ${want[*]})"
else
	why="no apt-get on this machine (install the equivalents of: ${want[*]})"
fi

if is_ci; then
	echo "ERROR: $why. CI=${CI} requires every system dependency: none of these checks may be skipped." >&2
	exit 1
fi
echo "WARNING: $why. Checks that will be skipped (or fail) without them:"
for line in "${deps[@]}"; do
	IFS='|' read -r name _ why_needed <<<"$line"
	if [ -z "$(where "$name")" ]; then
		case "$name" in
			redis-server) echo "  skipped: the Redis verdict-cache tests (jest says why) and the queue-mode E2E suite" ;;
			chromium) echo "  skipped: the HTML report screenshot test, the editor and registry E2E suites (set CHROMIUM_PATH if Chromium lives elsewhere)" ;;
			openssl) echo "  skipped: the registry E2E suite (install from a local npm registry through Settings -> Community Nodes)" ;;
			'build tools') echo "  not skippable: $why_needed; it fails unless n8n is already installed in the cache" ;;
		esac
	fi
done
exit 0
