//go:build !unix

package filestore

import "os"

// tryLock leaves the lock to bbolt, which takes it as it opens the file
// (LockFileEx on Windows), within the Timeout Store.do gives it.
func tryLock(*os.File) (bool, error) { return true, nil }
