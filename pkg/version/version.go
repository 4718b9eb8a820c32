// Package version names the cairn release every binary reports with --version and that
// `cairn doctor` compares across the installed binaries (pkg/setup's Stamp reads another
// binary's without running it; it is apart because debug/buildinfo's file readers would add to
// every hook's start).
package version

import (
	"runtime/debug"
	"strings"
)

// stamp is set at build time, by install.sh and the release script:
//
//	-ldflags "-X github.com/cairn-hooks/cairn/pkg/version.stamp=cairn-build-version:v1.2.3;"
//
// The value is kept whole in the binary's data, where setup.Stamp finds it by its marker: Go
// omits the link flags from its build information under -trimpath, which those builds use.
var stamp = ""

// Marker is the stamp's prefix. It is built at run time, never written as one literal, so that
// a binary holds "cairn-build-version:" only where it was stamped.
func Marker() string { return strings.Join([]string{"cairn", "build", "version:"}, "-") }

// String returns the version to report: the stamp, else the module's version from the build
// information (go install …@v1.2.3), else "dev".
func String() string {
	if v, ok := strings.CutPrefix(stamp, Marker()); ok {
		return strings.TrimSuffix(v, ";")
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return ModuleVersion(bi)
	}
	return "dev"
}

// ModuleVersion is the version a binary with build information bi reports when it is not
// stamped: its module's version (go install …@v1.2.3), else "dev".
func ModuleVersion(bi *debug.BuildInfo) string {
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Flag is the -ldflags argument that stamps v, as install.sh writes it.
func Flag(v string) string {
	return "-X github.com/cairn-hooks/cairn/pkg/version.stamp=" + Marker() + v + ";"
}
