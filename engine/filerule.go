package engine

import "io/fs"

// CheckFileRule applies to fi, the status of path, the rule the engine
// applies to hook files whatever allow_loose_permissions says: it returns a
// *PermissionError when the file is writable by group or others, or owned by
// another user than the process's (root excepted). Files that decide what
// runs, such as the CLI's trust records, are checked with it.
func CheckFileRule(path string, fi fs.FileInfo) error {
	return trust{uid: processUID()}.check(path, fi)
}
