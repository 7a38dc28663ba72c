package luabind

// maxDateFormatBytes bounds os.date's format.
const maxDateFormatBytes = 256
