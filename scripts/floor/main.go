// Command floor is the benchmark floor: a bare Go binary that only decodes one JSON object from
// its stdin, as every hook must. cairn's budgets are multiples of its run time (docs/DESIGN.md,
// Budgets).
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var v json.RawMessage
	json.NewDecoder(os.Stdin).Decode(&v)
}
