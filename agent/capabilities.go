package agent

import (
	"strings"

	"github.com/luahook/luahook"
)

// The capabilities the adapters declare in toolCapabilities (the one table
// of the agents' tool names is luahook's: luahook.KnownToolCapabilities).
const (
	CapShell   = luahook.CapShell
	CapFSRead  = luahook.CapFSRead
	CapFSWrite = luahook.CapFSWrite
	CapNetwork = luahook.CapNetwork
	CapMCP     = luahook.CapMCP
	CapTask    = luahook.CapTask
)

// mcpCapabilities is what every MCP tool declares.
var mcpCapabilities = []string{CapMCP}

// Capabilities returns the capabilities of the tool an agent calls name:
// luahook.KnownToolCapabilities, nil for a tool it does not list, except
// that a name it does not list that holds a "-" is an MCP tool's: Copilot
// CLI's camelCase dialect names MCP tools server-tool, without a prefix
// ("github-mcp-server-get_issue"; seen in 1.0.102), and no agent's own
// tool has a "-" in its name. The slice is shared; callers must not modify
// it.
func Capabilities(name string) []string {
	if c := luahook.KnownToolCapabilities(name); c != nil {
		return c
	}
	if strings.IndexByte(name, '-') >= 0 {
		return mcpCapabilities
	}
	return nil
}
