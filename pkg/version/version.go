// Package version names the cairn release every binary reports with --version and that
// `cairn doctor` compares across the installed binaries.
package version

import "runtime/debug"

// Version is set at build time with -ldflags "-X github.com/cairn-hooks/cairn/pkg/version.Version=…";
// otherwise it comes from the module's build info, or "dev".
var Version = ""

// String returns the version to report.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
