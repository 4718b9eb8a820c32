// Package testbin builds cairn's binaries once for a test package that runs them as processes
// (testscripts, testscripts/reliability, hooks/cairn-mcp's conformance test), and keeps go test's
// cache honest about it. It lives outside an internal/ directory so that hooks/cairn-mcp can
// import it; TestLayering keeps it out of every non-test build.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build builds every binary under <module>/hooks into a new temp directory (with -cover under
// coverage) and returns it with a function that removes it. moduleRoot is the module's root,
// relative to the test's directory ("..", "../..").
func Build(moduleRoot, prefix string) (dir string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	// -buildvcs=false: the binaries report "dev", whatever the Go environment says about VCS
	// stamping (a pseudo-version such as v0.0.0-…+dirty would end up in the scripts' regexps).
	args := []string{"build", "-buildvcs=false", "-o", dir + string(filepath.Separator)}
	if testing.CoverMode() != "" {
		args = append(args, "-cover")
	}
	args = append(args, "./hooks/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building the binaries: %v", err)
	}
	return dir, cleanup, nil
}

// TouchSources opens every Go source the binaries are built from. go test caches a passing
// result keyed by the files a test opens once it has started; the build runs in a child
// process, so without this a change to a hook would be served a stale cached pass. Call it from
// a test (not TestMain, where opens are not yet recorded).
func TouchSources(moduleRoot string) {
	for _, d := range []string{"hooks", "pkg"} {
		filepath.Walk(filepath.Join(moduleRoot, d), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".go") {
				if f, err := os.Open(p); err == nil {
					f.Close()
				}
			}
			return nil
		})
	}
}
