// Package e2e holds end-to-end tests that drive a real Claude Code binary
// (installed from npm by install-claude.sh) against the loopback mock of
// the Anthropic Messages API in testscripts/e2e/mockapi.
//
// The tests are gated: they run only with CAIRN_E2E=1, and they need the
// claude binary, either from CAIRN_CLAUDE or from the install cache
// (${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/claude-<pinned version>):
//
//	CAIRN_CLAUDE=$(sh testscripts/e2e/install-claude.sh) CAIRN_E2E=1 go test ./testscripts/e2e/ -v -count=1
//
// FINDINGS.md records what the pinned Claude Code version does with hooks.
package e2e
