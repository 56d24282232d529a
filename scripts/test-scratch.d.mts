/** The folder to make `npm test`'s temporary folder in (scripts/test-scratch.mjs). */
export function scratchParent(env?: Record<string, string | undefined>): string;
/** Whether `dir` is a tmpfs with room, writable, where programs run. */
export function ramDiskUsable(dir: string): boolean;
