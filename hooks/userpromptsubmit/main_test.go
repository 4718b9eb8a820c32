package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

var now = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

func payload(t testing.TB, root, prompt, transcriptPath string) string {
	b, err := json.Marshal(map[string]string{
		"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": root,
		"prompt": prompt, "transcript_path": transcriptPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func runHook(t testing.TB, env project.Env, in string) (stdout, stderr string) {
	var out, errb bytes.Buffer
	if code := hookio.Main(context.Background(), hook, nil, strings.NewReader(in), &out, &errb, env, func() time.Time { return now }); code != 0 {
		t.Fatalf("exit %d", code)
	}
	return out.String(), errb.String()
}

// A prompt that is plainly an answer is settled without opening the transcript: a transcript
// path that cannot be read would otherwise give a warning.
func TestAnswerSkipsTranscript(t *testing.T) {
	root := t.TempDir()
	env := project.Env{"CLAUDE_CONFIG_DIR": filepath.Join(root, "config")}
	unreadable := t.TempDir() // a directory: reading it as a transcript is an error
	for _, p := range []string{"yes", "ok do that", "sure, and then also add a test for it", "2) the second option please"} {
		if out, errs := runHook(t, env, payload(t, root, p, unreadable)); out != "" || errs != "" {
			t.Errorf("%q: stdout %q stderr %q", p, out, errs)
		}
	}
	out, errs := runHook(t, env, payload(t, root, "Now add a health check endpoint to the server", unreadable))
	if out != "" || !strings.HasPrefix(errs, "userpromptsubmit: warning: transcript: ") {
		t.Fatalf("stdout %q stderr %q", out, errs)
	}
}

// benchProject is a project with 10 parked items (the guard is reached) and a transcript of the
// given size, with a tool result line of longLine bytes in its last turn, whose last assistant
// message ends with a question.
func benchProject(b *testing.B, size, longLine int64) (root, path string) {
	root = b.TempDir()
	var sb strings.Builder
	sb.WriteString("# Session context\n\n## Parked items\n\n")
	for i := range parking.MaxOpen {
		fmt.Fprintf(&sb, "- **item-%d** — Deferred: idea %d. Raised: 2026-03-0%d.\n", i, i, 1+i%9)
	}
	p := sessionfile.Path(root)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	path = filepath.Join(root, "transcript.jsonl")
	if _, err := transcripttest.WriteFile(path, transcripttest.Options{Size: size, LongLine: longLine, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	f.WriteString(`{"type":"assistant","message":{"id":"msg_q","role":"assistant","model":"claude-opus-4-8","content":[{"type":"text","text":"Done.\n\nShould I use Postgres or SQLite for the cache?"}]}}` + "\n")
	f.Close()
	return root, path
}

// BenchmarkRun is the hook's work after process start (hookio.Main included), on a project
// with 10 parked items and a 64 MiB transcript: a plain answer (the transcript is not read), a
// new request after Claude's question and a deferral (the transcript's end is read, the guard is
// reached, nothing is written). The whole-process comparison with the bare-Go floor is
// scripts/bench's (docs/BENCHMARKS.md); this is its in-process part.
func BenchmarkRun(b *testing.B) {
	root, path := benchProject(b, 64<<20, 0)
	env := project.Env{"CLAUDE_CONFIG_DIR": filepath.Join(root, "config")}
	for _, bc := range []struct{ name, prompt string }{
		{"answer", "yes, go ahead"},
		{"new-request", "Add a health check endpoint to the server and test it"},
		{"deferral", "let's come back to the cache later, fix the build first"},
	} {
		in := payload(b, root, bc.prompt, path)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				runHook(b, env, in)
			}
		})
	}
}
