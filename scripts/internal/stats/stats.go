// Package stats is the benchmark scripts' arithmetic, in one place so that "median" and "p90"
// mean the same in every table of docs/BENCHMARKS.md and scripts/searchlab/REPORT.md.
package stats

import (
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Pct returns the p-quantile of xs by nearest rank: the sorted values' element round(p·(n−1)).
// It is 0 for no values.
func Pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

// Median is Pct(xs, 0.5): for an even count, the upper of the two middle values.
func Median(xs []float64) float64 { return Pct(xs, 0.5) }

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// FileSize is the size of the file at p, 0 when it cannot be read.
func FileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// DirSize is the total size of the regular files under dir.
func DirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
