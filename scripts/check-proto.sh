#!/usr/bin/env bash
# Guards the API contract (CI and before a commit): proto/ passes `buf lint`, the committed src/gen is what
# `buf generate` makes from proto/, and proto/ has no breaking change against the previous commit.
# Offline: buf and protoc-gen-es come from node_modules, and buf.yaml has no remote deps.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

fail() {
  echo "check-proto: FAILED: $*" >&2
  exit 1
}

command -v buf >/dev/null || fail "buf not found in node_modules/.bin (run npm ci)"
command -v protoc-gen-es >/dev/null || fail "protoc-gen-es not found in node_modules/.bin (run npm ci)"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || fail "not inside a git work tree"

echo "check-proto: buf lint"
buf lint || fail "buf lint reported the problems above"

echo "check-proto: buf generate"
buf generate || fail "buf generate did not run"
stale="$(git status --porcelain --untracked-files=all -- src/gen)"
if [ -n "$stale" ]; then
  echo "$stale" >&2
  fail "src/gen is stale: it differs from what proto/ generates. Run 'npm run generate' and commit src/gen."
fi

if ! git rev-parse --verify --quiet 'HEAD~1^{commit}' >/dev/null; then
  echo "check-proto: buf breaking skipped: HEAD has no parent commit here (first commit or shallow clone)"
elif ! git cat-file -e 'HEAD~1:proto' 2>/dev/null; then
  echo "check-proto: buf breaking skipped: HEAD~1 has no proto/ directory"
else
  echo "check-proto: buf breaking against HEAD~1"
  buf breaking --against '.git#ref=HEAD~1' || fail "breaking changes against HEAD~1 (listed above)"
fi

echo "check-proto: OK"
