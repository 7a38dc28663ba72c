package luahook

import "runtime/debug"

// Version is luahook's version: the module version the binary was built
// from ("v1.2.3"), or "devel" plus the VCS revision (and "+dirty") for a
// build from a work tree, or "devel" when the build carries no information.
// Decision logs record it, and `luahook --version` prints it.
var Version = buildVersion()

func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}
