package luahook

import "strings"

// The capabilities the agent adapters declare in toolCapabilities, so that
// a matcher such as "@shell" or "@fs.write" selects the same kind of tool on
// every agent, whatever the agent calls it.
const (
	CapShell   = "shell"    // runs a command line
	CapFSRead  = "fs.read"  // reads or searches files
	CapFSWrite = "fs.write" // creates, edits or deletes files
	CapNetwork = "network"  // fetches or searches the web
	CapMCP     = "mcp"      // calls a tool of an MCP server
	CapTask    = "task"     // delegates to a sub-agent
)

// capabilityTable is the one table of tool names to capabilities, for every
// agent. Names compare case-insensitively (they are stored lower-case); the
// comment after each group says whose names they are. MCP tools are
// recognised by their prefix instead (mcpPrefixes).
var capabilityTable = map[string][]string{
	// Claude Code, Codex, Copilot's PascalCase dialect (Claude's names).
	"bash": {CapShell}, "powershell": {CapShell},
	"read": {CapFSRead}, "grep": {CapFSRead}, "glob": {CapFSRead}, "ls": {CapFSRead}, "notebookread": {CapFSRead},
	"write": {CapFSWrite}, "edit": {CapFSWrite}, "multiedit": {CapFSWrite}, "notebookedit": {CapFSWrite},
	"webfetch": {CapNetwork}, "websearch": {CapNetwork},
	"task": {CapTask}, "agent": {CapTask},
	// Codex's own names where they differ (apply_patch is reported as such).
	"apply_patch": {CapFSWrite}, "exec_command": {CapShell}, "local_shell": {CapShell}, "shell": {CapShell},
	"spawn_agent": {CapTask},
	// Cursor: Shell, Read, Write, Grep, Delete, Task (and MCP, below).
	"delete": {CapFSWrite},
	// Copilot's camelCase dialect: bash, powershell, view, create, edit, glob, grep, task, web_fetch.
	"view": {CapFSRead}, "create": {CapFSWrite}, "web_fetch": {CapNetwork},
	// Gemini CLI.
	"run_shell_command": {CapShell}, "read_file": {CapFSRead}, "read_many_files": {CapFSRead},
	"list_directory": {CapFSRead}, "search_file_content": {CapFSRead},
	"write_file": {CapFSWrite}, "replace": {CapFSWrite},
	"google_web_search": {CapNetwork}, "web_search": {CapNetwork},
}

// mcpCapabilities is what every MCP tool declares.
var mcpCapabilities = []string{CapMCP}

// mcpPrefixes are how agents name MCP tools: mcp__server__tool (Claude Code,
// Codex, Copilot's PascalCase dialect), mcp_server_tool (Gemini CLI since
// 2026-03), MCP:tool (Cursor's preToolUse); Cursor's plain "MCP" is in
// KnownToolCapabilities (Copilot's camelCase names, server-tool, are the
// agent package's to read).
var mcpPrefixes = []string{"mcp__", "mcp_", "mcp:"}

// KnownToolCapabilities returns the capabilities of the tool an agent
// calls name, from the one table above (the agents' own tool names, and
// MCP tools by their prefix): nil for a name it does not know. A matcher's
// @capability falls back to it when a payload declares no
// toolCapabilities, so that "@shell" selects a payload in luahook's own
// format naming its tool "bash" on every door alike. The slice is shared;
// callers must not modify it.
func KnownToolCapabilities(name string) []string {
	for _, p := range mcpPrefixes {
		if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
			return mcpCapabilities
		}
	}
	if len(name) > maxToolName {
		return nil
	}
	var buf [maxToolName]byte
	lower := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	if string(lower) == "mcp" {
		return mcpCapabilities
	}
	return capabilityTable[string(lower)]
}

// maxToolName is longer than every name in capabilityTable.
const maxToolName = 32
