//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is ru_maxrss in KiB, from os/exec's process state (an upper bound: see measureRSS).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
