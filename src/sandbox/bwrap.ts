import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Flags every sandbox gets, the probe included, so the probe tests what runs use:
 * - --unshare-all: no network (a fresh namespace with only loopback), own PID namespace
 *   (nothing outside is visible, and everything inside dies with its first process), own
 *   IPC, UTS and cgroup namespaces.
 * - --unshare-user --disable-userns --cap-drop ALL: when rpg-forge runs as root (as in
 *   containers), the sandboxed process would otherwise keep every capability inside its
 *   user namespace and could `mount -o remount,rw` a read-only bind and write to the host.
 *   Dropping capabilities stops that; no nested user namespaces stops regaining them.
 * - --die-with-parent: the sandbox dies when we do, even if we are SIGKILLed.
 * - --new-session: no access to a controlling terminal (TIOCSTI input injection).
 */
const ISOLATION = ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--die-with-parent", "--new-session"];

/**
 * Everything read-only, with a fresh /dev and an empty /tmp. /proc is an empty folder: a process can always read its
 * own memory through /proc/self/mem (however the path is spelled, or from a directory descriptor), and a security
 * review read the verdict's key that way. Neither Python nor pytest needs /proc.
 */
const BASE_FILE_SYSTEM = ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/proc", "--tmpfs", "/tmp"];

/**
 * Where credentials live on a developer's machine or a runner (SSH keys, cloud and
 * registry logins, the runner's own files in /home/runner and /opt): hidden behind empty
 * folders, since the rest of the file system is readable in the sandbox.
 */
export const HIDDEN_DIRS = ["/home", "/root", "/opt", "/srv", "/mnt", "/media", "/run"];

export interface BwrapLayout {
  /** The package directory, read-only while the tests run. */
  cwd: string;
  /** Existing directories to hide (HIDDEN_DIRS and the user's home). */
  hidden: string[];
  /** Directories the interpreter needs, mounted back read-only over the hidden ones (pyenv lives in a home). */
  runtime: string[];
  /** Our private run directory (HOME, TMPDIR, the JUnit report): the only writable place besides /tmp. */
  privateDir: string;
  env: Record<string, string>;
}

/** bwrap arguments up to (not including) the command. Later mounts go over earlier ones, so the order matters. */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const args = [...ISOLATION, ...BASE_FILE_SYSTEM];
  for (const path of layout.hidden) args.push("--tmpfs", path);
  for (const path of layout.runtime) args.push("--ro-bind", path, path);
  // Mounted after the tmpfs mounts, so these show through them even when they live under /tmp or a home.
  // Read-only: what the engine ships is what it wrote, and the tests cannot change it (they get TMPDIR and tmp_path).
  args.push("--ro-bind", layout.cwd, layout.cwd);
  args.push("--bind", layout.privateDir, layout.privateDir);
  // The empty folders stay empty: a sandbox serves gate after gate (decision 0031), and what one gate could leave there
  // the next one would find. /tmp and /dev stay writable; the launcher looks at them after each gate.
  for (const path of ["/proc", ...layout.hidden]) args.push("--remount-ro", path);
  // The launcher's gates change into the package themselves; the sandbox's first process stays out of it.
  args.push("--chdir", "/", "--clearenv");
  for (const [name, value] of Object.entries(layout.env)) args.push("--setenv", name, value);
  args.push("--");
  return args;
}

let located: Promise<string | undefined> | undefined;

/** Absolute path of bwrap on PATH, or undefined. */
export function findBwrap(): Promise<string | undefined> {
  located ??= (async () => {
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      if (dir === "") continue;
      const candidate = join(dir, "bwrap");
      if (
        await access(candidate, constants.X_OK).then(
          () => true,
          () => false,
        )
      )
        return candidate;
    }
    return undefined;
  })();
  return located;
}

export type BwrapProbe = { usable: true; path: string } | { usable: false; reason: string };

let probed: Promise<BwrapProbe> | undefined;

/**
 * Whether bwrap can build our sandbox here, found out once by running `true` in it. It may
 * be installed yet unusable: user namespaces disabled (sysctl, AppArmor on Ubuntu 24.04),
 * or seccomp in an unprivileged container.
 */
export function probeBwrap(): Promise<BwrapProbe> {
  probed ??= (async (): Promise<BwrapProbe> => {
    const path = await findBwrap();
    if (!path) return { usable: false, reason: "bwrap (bubblewrap) is not on PATH" };
    try {
      const env = { PATH: "/usr/bin:/bin" };
      await run(path, [...ISOLATION, ...BASE_FILE_SYSTEM, "--clearenv", "--setenv", "PATH", env.PATH, "--", "true"], {
        env,
        timeout: 10_000,
      });
      return { usable: true, path };
    } catch (error) {
      const { stderr, message } = error as { stderr?: string; message?: string };
      return { usable: false, reason: `${path} cannot create a sandbox: ${(stderr?.trim() || message) ?? String(error)}` };
    }
  })();
  return probed;
}
