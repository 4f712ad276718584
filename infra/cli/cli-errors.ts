// How every `portcullis` command ends, so scripts and CI can rely on it: 0 success, 1 a check found what it
// looks for (an invalid document, a denial, a difference, a failed test), 2 usage or input error (a bad flag,
// a file that cannot be read, an unknown policy), always with a message that names what is wrong.
export const EXIT = { ok: 0, found: 1, usage: 2 } as const;

/** Bad usage or input: printed with a pointer to the command's --help, exit code 2. */
export class UsageError extends Error {}
