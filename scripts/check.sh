#!/bin/sh
# check.sh — the one check that CI and people run. Fails on the first problem.
set -eu
cd "$(dirname "$0")/.."

echo "== gofmt"
out=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$out" ]; then echo "gofmt would change:"; echo "$out"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== go mod tidy leaves no diff"
cp go.mod /tmp/cairn-go.mod.$$; cp go.sum /tmp/cairn-go.sum.$$
go mod tidy
if ! cmp -s go.mod /tmp/cairn-go.mod.$$ || ! cmp -s go.sum /tmp/cairn-go.sum.$$; then
	echo "go mod tidy changed go.mod/go.sum"; git diff -- go.mod go.sum
	mv /tmp/cairn-go.mod.$$ go.mod; mv /tmp/cairn-go.sum.$$ go.sum; exit 1
fi
rm -f /tmp/cairn-go.mod.$$ /tmp/cairn-go.sum.$$

echo "== tests (the README's test command)"
go test -p 2 ./...

echo "== race"
go test -race -p 2 ./...

echo "== testscripts are up to date (update run leaves git status clean)"
go test ./testscripts/ -run TestScripts -u >/dev/null
if [ -n "$(git status --porcelain -- testscripts)" ]; then
	echo "testscript -u changed scripts:"; git status --porcelain -- testscripts; exit 1
fi

echo "== fuzz (short)"
for t in "FuzzRefresh ./pkg/whiteboard" "FuzzParse ./pkg/runstate" "FuzzReadPayload ./pkg/hookio"; do
	set -- $t
	go test -run XXX -fuzz "^$1\$" -fuzztime 10s "$2"
done
echo "ok"
