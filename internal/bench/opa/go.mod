module github.com/luahook/luahook/internal/bench/opa

go 1.26.0

require (
	github.com/open-policy-agent/opa v1.22.4
)
