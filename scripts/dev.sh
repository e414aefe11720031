#!/usr/bin/env bash
# The two commands of the README, runnable on a fresh machine with only Node 20 on PATH:
#   bash scripts/dev.sh start   build, install a pinned n8n on first use, start it with the examples
#   bash scripts/dev.sh test    system packages, lint, build, unit + engine tests, then the real-n8n
#                               end-to-end tests
# Node.js 24 (n8n 2.x needs it) is fetched from the npm registry into a cache on first use; the
# Debian packages the tests need come first (scripts/system-deps.sh: apt-get as root).
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_BIN="$(bash scripts/node24.sh)"
export PATH="$NODE_BIN:$PATH"
export N8N_LOG_LEVEL="${N8N_LOG_LEVEL:-silent}"

install_deps() {
	# Native install scripts are skipped: nothing in our dependency tree needs them for our use,
	# and some (kafka, sqlite bindings of n8n-nodes-base) try to download prebuilt binaries.
	local stamp=node_modules/.install-stamp
	if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
		echo "== installing dependencies (npm ci) with Node $(node --version)"
		npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
		touch "$stamp"
	fi
}

cmd="${1:-test}"
shift || true
case "$cmd" in
	start)
		bash scripts/system-deps.sh start
		install_deps
		npm run --silent build
		exec node scripts/start.js "$@"
		;;
	test)
		# Every apt package the tests need (redis-server, chromium, the compiler for n8n's sqlite3),
		# before the first test runs; without root it says which checks will be skipped.
		bash scripts/system-deps.sh test
		install_deps
		echo "== lint"
		npm run --silent lint
		echo "== typecheck"
		npm run --silent typecheck:tests
		echo "== build"
		npm run --silent build
		node scripts/docs.js --check
		echo "== n8n install recovery (damaged, interrupted and stalled installs, with a stand-in npm)"
		node test/install/recovery.js
		echo "== unit and engine tests"
		npx jest --ci "$@"
		if [ -f scripts/e2e.js ] && [ "${SKIP_E2E:-0}" != "1" ]; then
			# --browser needs chromium, --queue redis-server, --registry chromium and openssl: left
			# out (and said so above) only when they are missing outside CI.
			read -r -a e2e_flags <<<"$(bash scripts/system-deps.sh --e2e-flags)"
			echo "== end to end against real n8n: examples${e2e_flags[*]:+ (suites: ${e2e_flags[*]})}"
			for suite in browser queue registry; do
				case " ${e2e_flags[*]:-} " in
					*" --$suite "*) ;;
					*) echo "   skipping the $suite suite: its system package is missing (see the system dependencies above)" ;;
				esac
			done
			node scripts/e2e.js "${e2e_flags[@]}"
		fi
		;;
	*)
		install_deps
		exec npm run "$cmd" -- "$@"
		;;
esac
