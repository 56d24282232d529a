import { PROGRAM_LOADER } from "./gate-launcher-source.js";

/**
 * What the launcher's interpreter runs first (`python -s -c <it> <mode>`), as Python source: it confines the process
 * and everything it will ever start, then replaces itself (execv) with the launcher proper, which reads its program
 * from PROGRAM_FD. ctypes does the confining and is gone with the process image it was loaded in: a gate forked from
 * an interpreter that had loaded it could call any C function, memmove included, without a single audit event (a
 * security review read the run's key that way). What it sets outlives the execv:
 * - PR_SET_CHILD_SUBREAPER: whatever a gate leaves behind comes back to the launcher when its parent dies;
 * - no capability, now or after any execv (the bounding set emptied; as root, the secure bits NOROOT and
 *   NO_SETUID_FIXUP locked), and no_new_privs: no set-user-ID program, sudo included, gives any back;
 * - a seccomp filter that refuses, with EPERM, the system calls that reach into another process (ptrace,
 *   process_vm_readv and _writev, pidfd_getfd) and the kernel's keyrings (add_key, request_key, keyctl, which outlive
 *   a process), and every system call of another architecture's table (x32, i386). An architecture it has no table
 *   for ends the launcher: no gate runs unconfined.
 */
export const CONFINEMENT_SOURCE = String.raw`
def _confine():
    import ctypes, os, platform, struct, sys

    libc = ctypes.CDLL(None, use_errno=True)

    def must(result, what):
        if result != 0:
            raise SystemExit("rpg-forge launcher: %s failed: %s" % (what, os.strerror(ctypes.get_errno())))

    must(libc.prctl(36, 1, 0, 0, 0), "PR_SET_CHILD_SUBREAPER")
    for cap in range(64):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP: EINVAL past the last one, EPERM with none to drop
    libc.prctl(28, 0x2F, 0, 0, 0)  # PR_SET_SECUREBITS (needs a capability: root only, where it matters)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    must(libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()), "capset")
    must(libc.prctl(38, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")

    # (audit architecture, refused calls): ptrace, process_vm_readv, process_vm_writev, add_key, request_key, keyctl,
    # pidfd_getfd.
    tables = {
        "x86_64": (0xC000003E, (101, 310, 311, 248, 249, 250, 438)),
        "aarch64": (0xC00000B7, (117, 270, 271, 217, 218, 219, 438)),
    }
    if platform.machine() not in tables:
        raise SystemExit("rpg-forge launcher: no seccomp filter for %s; use another machine" % platform.machine())
    arch, refused = tables[platform.machine()]
    load, equal, at_least, answer = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    program = [(load, 0, 0, 4), (equal, 1, 0, arch), (answer, 0, 0, deny), (load, 0, 0, 0)]
    checks = [(at_least, 0x40000000)] + [(equal, number) for number in refused]
    for i, (code, k) in enumerate(checks):
        program.append((code, len(checks) - i, 0, k))  # to the refusal after the last check and the allowance
    program += [(answer, 0, 0, allow), (answer, 0, 0, deny)]
    filters = ctypes.create_string_buffer(b"".join(struct.pack("<HBBI", *row) for row in program))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    must(libc.prctl(22, 2, ctypes.byref(Program(len(program), ctypes.addressof(filters))), 0, 0), "PR_SET_SECCOMP")
    os.execv(sys.executable, [sys.executable, "-s", "-c", ${JSON.stringify(PROGRAM_LOADER)}] + sys.argv[1:])


_confine()
`;
