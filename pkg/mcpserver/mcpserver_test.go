package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestClipText(t *testing.T) {
	s := strings.Repeat("line é\n", 10000)
	out := clipText(s, 1000)
	if len(out) > 1200 || !strings.Contains(out, "cut at") || !strings.HasPrefix(s, out[:strings.Index(out, "\n…")]) {
		t.Errorf("clipText: %d bytes: %q", len(out), out[len(out)-100:])
	}
	if clipText("short", 1000) != "short" {
		t.Error("clipText changed a short text")
	}
}

// At most maxRunning cairn commands run at once, however many calls are in flight.
func TestRunningBound(t *testing.T) {
	dir := t.TempDir()
	// A stand-in cairn that records how many of it run at once.
	fake := filepath.Join(dir, "cairn")
	script := "#!/bin/sh\nd=" + dir + "\nmkdir \"$d/run.$$\"\nn=$(ls -d \"$d\"/run.* | wc -l)\necho $n >> \"$d/counts\"\nsleep 0.2\nrmdir \"$d/run.$$\"\necho ok\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newServer(fake)
	var wg sync.WaitGroup
	for i := 0; i < 3*maxRunning; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, _, _ := s.run(context.Background(), "session", "list"); res.IsError {
				t.Errorf("call failed: %v", res.Content)
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(filepath.Join(dir, "counts"))
	most := 0
	for _, f := range strings.Fields(string(data)) {
		n, _ := strconv.Atoi(f)
		most = max(most, n)
	}
	if most == 0 || most > maxRunning {
		t.Errorf("at most %d ran at once, want 1 to %d:\n%s", most, maxRunning, data)
	}
}

// A command that hangs is killed at the call's bound and answered as an error, and while every
// slot is taken a call waits at most that bound before it is told to try again.
func TestRunTimeout(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "cairn")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho started\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newServer(fake)
	s.timeout = 300 * time.Millisecond
	res, _, err := s.run(context.Background(), "search", "--", "x")
	text := res.Content[0].(*mcp.TextContent).Text
	if err != nil || !res.IsError || !strings.Contains(text, "started") || !strings.Contains(text, "cairn-mcp: error:") {
		t.Errorf("a hung command: err %v, IsError %v, %q", err, res.IsError, text)
	}
	for range maxRunning {
		s.slots <- struct{}{}
	}
	res, _, _ = s.run(context.Background(), "search", "--", "x")
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "try again") {
		t.Errorf("every slot taken: IsError %v, %q", res.IsError, text)
	}
}
