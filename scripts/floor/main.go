// Command floor is the benchmark floor: a bare Go binary that only decodes one JSON object from
// its stdin, as every hook must. SPEC §8 states cairn's budgets as multiples of its run time.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var v json.RawMessage
	json.NewDecoder(os.Stdin).Decode(&v)
}
