package safefile

import "syscall"

// sysRenameat2 is renameat2(2) on linux/arm64.
const sysRenameat2 = syscall.SYS_RENAMEAT2
