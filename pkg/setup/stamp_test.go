package setup

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/version"
)

// A binary stamped as install.sh stamps it, under -trimpath, reports its version to Of without
// being run; an unstamped one reports "dev"; a file that is not a Go binary is refused.
func TestStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	dir := t.TempDir()
	build := func(name string, flags ...string) string {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", append(append([]string{"build", "-trimpath", "-o", out}, flags...), "../../hooks/sessionend")...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		return out
	}
	v, pkg, err := Stamp(build("stamped", "-ldflags", version.Flag("v1.2.3-4-gabcdef-dirty")))
	if err != nil || v != "v1.2.3-4-gabcdef-dirty" || pkg != "github.com/cairn-hooks/cairn/hooks/sessionend" {
		t.Fatalf("stamped: %q %q %v", v, pkg, err)
	}
	if v, _, err := Stamp(build("plain", "-buildvcs=false")); err != nil || v != "dev" { // VCS stamping would name a pseudo-version
		t.Fatalf("unstamped: %q %v", v, err)
	}
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("#!/bin/sh\necho sessionend "+version.Marker()+"v9;\n"), 0o755)
	if _, _, err := Stamp(script); err == nil || !strings.Contains(err.Error(), "no Go build information") {
		t.Fatalf("a script: %v", err)
	}
}

// The stamp is found wherever it lies, a chunk boundary included, as the first marker's value;
// a marker without a ';' within 128 bytes is no stamp.
func TestFindStamp(t *testing.T) {
	m := version.Marker()
	for _, at := range []int{0, 5, stampChunk - len(m), stampChunk - 3, stampChunk - 1, stampChunk, stampChunk + 1, 3*stampChunk - 7} {
		data := make([]byte, 4*stampChunk)
		copy(data[at:], m+"v1.2.3;"+m+"v9;")
		if v, ok, err := findStamp(bytes.NewReader(data), int64(len(data))); err != nil || !ok || v != "v1.2.3" {
			t.Errorf("marker at %d: %q %v %v", at, v, ok, err)
		}
		if v, ok, _ := findStamp(bytes.NewReader(data), int64(at+len(m)+3)); ok {
			t.Errorf("marker at %d, file cut inside the value: %q", at, v)
		}
	}
	data := []byte("x" + m + strings.Repeat("v", maxStamp) + ";" + m + "v2;")
	if v, ok, _ := findStamp(bytes.NewReader(data), int64(len(data))); !ok || v != strings.Repeat("v", maxStamp) {
		t.Errorf("a value of %d bytes: %q %v", maxStamp, v, ok)
	}
	data = []byte("x" + m + strings.Repeat("v", maxStamp+1) + ";" + m + "v2;")
	if v, ok, _ := findStamp(bytes.NewReader(data), int64(len(data))); ok {
		t.Errorf("a value of %d bytes: %q", maxStamp+1, v)
	}
	if _, ok, _ := findStamp(bytes.NewReader(nil), 0); ok {
		t.Error("found a stamp in nothing")
	}
}

// A binary padded to hundreds of MB — what a repository's settings can name — is read a chunk at
// a time: Of allocates a few MiB, not the 64 MiB it scans (before: io.ReadAll, 190 MiB of peak
// RSS in cairn doctor).
func TestStampPaddedBinaryStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	out := filepath.Join(t.TempDir(), "padded")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "-ldflags", version.Flag("v7.7.7"), "../../hooks/sessionend")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if err := os.Truncate(out, 300<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, _, err := Stamp(out)
	runtime.ReadMemStats(&after)
	if err != nil || v != "v7.7.7" {
		t.Fatalf("%q %v", v, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("Of allocated %d MiB reading a padded binary", alloc>>20)
	}
}
