package safefile

import (
	"go/build"
	"testing"
)

// Every Linux has renameat2 through golang.org/x/sys/unix, whatever the architecture: a
// replacement swaps the file on each of them (exchange_linux.go), and renames only elsewhere.
func TestExchangeOnEveryLinux(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64", "386", "arm", "riscv64", "ppc64le", "s390x", "loong64"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = "linux", arch, false
		for file, want := range map[string]bool{"exchange_linux.go": true, "exchange_other.go": false} {
			if got, err := ctx.MatchFile(".", file); err != nil || got != want {
				t.Errorf("linux/%s: %s built %v, want %v (%v)", arch, file, got, want, err)
			}
		}
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "darwin", "arm64"
	if ok, _ := ctx.MatchFile(".", "exchange_other.go"); !ok {
		t.Error("darwin: no exchange_other.go")
	}
}
