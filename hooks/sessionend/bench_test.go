package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// BenchmarkHandoff is SessionEnd in process, each run after one more edit, so that each leaves
// a hand-off: where its time goes (go test -bench Handoff -cpuprofile), next to the whole
// process the bench times against the floor (docs/BENCHMARKS.md).
func BenchmarkHandoff(b *testing.B) {
	root, home := b.TempDir(), b.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	config := filepath.Join(home, ".claude")
	const sid = "5ec9feb7-3698-440a-a114-179146998787"
	dir := filepath.Join(config, "projects", project.Slug(root))
	os.MkdirAll(dir, 0o700)
	tr := filepath.Join(dir, sid+".jsonl")
	if _, err := transcripttest.WriteFile(tr, transcripttest.Options{Size: 1 << 20, Boundaries: 1, Seed: 1, Root: root}); err != nil {
		b.Fatal(err)
	}
	env := project.Env{"HOME": home, "CLAUDE_CONFIG_DIR": config, "CLAUDE_PROJECT_DIR": root}
	payload := []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"SessionEnd","reason":"other"}`, sid, tr, root))
	now := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		fmt.Fprintf(f, `{"type":"assistant","message":{"id":"b%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Edit","input":{"file_path":"%s/src/f%d.go"}}]}}`+"\n", i, i, root, i%50)
		f.Close()
		now = now.Add(time.Second)
		var errOut bytes.Buffer
		if code := hookio.Main(context.Background(), hook, nil, bytes.NewReader(payload), io.Discard, &errOut, env, func() time.Time { return now }); code != 0 || errOut.Len() > 0 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
}
