package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
)

// A checkpoint retention removes leaves its whole text in memory/pruned.jsonl first, with its
// kind, branch and session: what it knew stays findable.
func TestPrunedKeepsText(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	first := makeAuto(t, root, "s1", "main", start, 1)
	want, _ := os.ReadFile(first.Path)
	for i := 1; i <= RetainPerBranch; i++ {
		makeAuto(t, root, "s1", "main", start.Add(time.Duration(i)*time.Minute), 1+i)
	}
	if _, err := os.Stat(first.Path); err == nil {
		t.Fatal("the oldest was not pruned")
	}
	data, err := os.ReadFile(filepath.Join(root, PrunedFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	var got struct {
		TS, Checkpoint, Kind, Branch, Session, Text string
		Cut                                         int64
	}
	if err := json.Unmarshal(lines[0], &got); err != nil {
		t.Fatal(err)
	}
	if got.Checkpoint != first.Rel || got.Kind != checkpoint.KindAuto || got.Branch != "main" || got.Session != "s1" ||
		got.Text != string(want) || got.Cut != 0 || got.TS == "" {
		t.Errorf("pruned line: %+v", got)
	}
}

// A checkpoint whose text cannot be kept is not removed; a text over the bound is cut and says so.
func TestPrunedNotKeptNotRemoved(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	first := makeAuto(t, root, "s1", "main", start, 1)
	os.MkdirAll(filepath.Join(root, PrunedFile), 0o755) // the log cannot be appended to
	for i := 1; i <= RetainPerBranch; i++ {
		in := AutoInput{SessionID: "s1", Trigger: "auto", Event: "s1/auto/x" + strings.Repeat("y", i), Branch: "main", Now: start.Add(time.Duration(i) * time.Minute)}
		catalogOf(disk(root), root).Auto(in)
	}
	if _, err := os.Stat(first.Path); err != nil {
		t.Fatalf("removed without its text kept: %v", err)
	}

	root = t.TempDir()
	big := makeAuto(t, root, "s2", "main", start, 1)
	f, _ := os.OpenFile(big.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.Repeat("é", maxPrunedText))
	f.Close()
	size := fileSize(big.Path)
	makeAuto(t, root, "s2", "main", start.Add(31*24*time.Hour), 2)
	data, _ := os.ReadFile(filepath.Join(root, PrunedFile))
	var got struct {
		Text string
		Cut  int64
	}
	json.Unmarshal(bytes.TrimSpace(data), &got)
	if len(got.Text) > maxPrunedText || int64(len(got.Text))+got.Cut != size || !strings.HasPrefix(got.Text, "---\n") {
		t.Errorf("cut text: %d bytes + %d cut, file %d", len(got.Text), got.Cut, size)
	}
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return fi.Size()
}
