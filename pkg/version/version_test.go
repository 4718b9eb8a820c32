package version

import (
	"runtime/debug"
	"testing"
)

// An unstamped binary reports its module's version when go install gave it one, else dev.
func TestModuleVersion(t *testing.T) {
	for v, want := range map[string]string{"v1.2.3": "v1.2.3", "(devel)": "dev", "": "dev"} {
		if got := ModuleVersion(&debug.BuildInfo{Main: debug.Module{Version: v}}); got != want {
			t.Errorf("ModuleVersion(%q) = %q, want %q", v, got, want)
		}
	}
	if Flag("v1") != "-X github.com/cairn-hooks/cairn/pkg/version.stamp="+Marker()+"v1;" {
		t.Errorf("Flag: %s", Flag("v1"))
	}
}
