package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-size", "256KB", "-long-line", "64KiB", "-boundaries", "2", "-seed", "3", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() < 250<<10 || fi.Size() > 600<<10 {
		t.Fatalf("output: %v, %v", fi, err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "last boundary at") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}

	stdout.Reset()
	if code := run([]string{"-size", "10k", "-seed", "3"}, &stdout, &stderr); code != 0 || stdout.Len() < 10<<10 {
		t.Errorf("to stdout: exit %d, %d bytes", code, stdout.Len())
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"-size", "lots"}, {"-long-line", "-3"}, {"extra"}, {"-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
}
