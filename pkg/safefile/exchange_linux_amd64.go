package safefile

// sysRenameat2 is renameat2(2) on linux/amd64.
const sysRenameat2 = 316
