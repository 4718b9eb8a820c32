module github.com/cairn-hooks/cairn

go 1.26.8

require (
	github.com/adrg/frontmatter v0.2.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/tidwall/gjson v1.20.3
)

require (
	github.com/BurntSushi/toml v0.3.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
	gopkg.in/yaml.v2 v2.3.0 // indirect
)
