package stats

import "testing"

func TestPct(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6} // sorted 1..6
	for p, want := range map[float64]float64{0: 1, 0.5: 4, 0.9: 6, 1: 6} {
		if got := Pct(xs, p); got != want {
			t.Errorf("Pct(%v) = %v, want %v", p, got, want)
		}
	}
	if Median([]float64{3, 1, 2}) != 2 || Median(nil) != 0 {
		t.Error("Median")
	}
	if xs[0] != 5 {
		t.Error("Pct sorted its argument in place")
	}
}
