//go:build unix

package safefile

import (
	"io/fs"
	"os/user"
	"strconv"
	"syscall"
)

// owner returns the uid that owns the file fi describes.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// PrivateGroup reports whether fi's group is its owner's user private
// group: the owner's primary group, named after the owner (the convention
// of distributions whose default umask is 002). Write access for that
// group is write access for the owner alone, as Debian's OpenSSH also
// accepts. Root's group is never taken for one, since it commonly has other
// members.
func PrivateGroup(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return false
	}
	u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10))
	if err != nil || u.Gid != strconv.FormatUint(uint64(st.Gid), 10) {
		return false
	}
	g, err := user.LookupGroupId(u.Gid)
	return err == nil && g.Name == u.Username
}
