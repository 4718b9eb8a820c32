package transcripttest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// Every generated line is valid JSON, except the cut tail when asked for one.
func TestLinesAreValidJSON(t *testing.T) {
	var buf bytes.Buffer
	truth, err := Generate(&buf, Options{Size: 512 << 10, LongLine: 100 << 10, Boundaries: 2, Seed: 5, PartialTail: true})
	if err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != truth.Size {
		t.Errorf("Truth.Size %d, wrote %d", truth.Size, buf.Len())
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	n := 0
	var last []byte
	for sc.Scan() {
		if last != nil && !gjson.ValidBytes(last) {
			t.Fatalf("line %d is not valid JSON: %.200s", n, last)
		}
		last = append(last[:0], sc.Bytes()...)
		n++
	}
	if gjson.ValidBytes(last) {
		t.Error("the partial tail is valid JSON")
	}
	if n-1 != truth.Lines {
		t.Errorf("%d complete lines, Truth.Lines %d", n-1, truth.Lines)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"200MB": 200 << 20, "60MiB": 60 << 20, "512k": 512 << 10, "1048576": 1 << 20, "1.5G": 3 << 29, " 2 kb ": 2 << 10, "0": 0, "7B": 7} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-1MB", "ten"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// What Session writes reads back through package transcript as what it said.
func TestSessionReadsBack(t *testing.T) {
	s := &Session{ID: "0f3c2a9e-aaaa-bbbb-cccc-ddddeeeeffff", Cwd: "/w/proj", Branch: "fix/x", Time: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	s.Prompt("fix the ledger7 parser").Say("Looking.").Bash("go test ./...", 1, "--- FAIL: TestX\nFAIL").Edit("/w/proj/a.go").Compact("The user fixed it.")
	path := filepath.Join(t.TempDir(), s.ID+".jsonl")
	os.WriteFile(path, s.Bytes(), 0o600)
	d, ok, err := transcript.ReadDigest(path)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if d.Prompts != 1 || d.First[0] != "fix the ledger7 parser" || d.Cwd != "/w/proj" || d.Branch != "fix/x" ||
		len(d.Commands) != 1 || d.Commands[0].Status != "exit 1" || len(d.Edited) != 1 || d.Summaries[0] != "The user fixed it." {
		t.Errorf("digest: %+v", d)
	}
}
