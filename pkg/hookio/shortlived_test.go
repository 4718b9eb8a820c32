package hookio

import (
	"runtime/debug"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/project"
)

// A hook collects only near its memory budget, unless the environment sets the collector.
func TestShortLived(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ShortLived(project.Env{"GOGC": "50"})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the collector was changed: GC percent %d", got)
	}
	ShortLived(project.Env{})
	if got, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); got != -1 || limit != hookMemory {
		t.Errorf("GC percent %d, memory limit %d; want -1 and %d", got, limit, hookMemory)
	}
}
