# code.replace run by a pool's worker thread: its stack holds no frame of the package, so the guard let code.__new__ by.
import concurrent.futures, types

from attack_kit import TEMPLATE, _keep, fake_bytearray, forge_with_reader, load_const

_pool = concurrent.futures.ThreadPoolExecutor(1)


def memory_reader():
    holder = fake_bytearray()
    consts = TEMPLATE.co_consts  # code.replace keeps this very tuple: the offset is known before the code is made
    assert (id(holder) + 32 - (id(consts) + 24)) % 8 == 0
    made = _pool.submit(TEMPLATE.replace, co_code=load_const((id(holder) + 32 - (id(consts) + 24)) // 8)).result()
    assert made.co_consts is consts
    fn = types.FunctionType(made, {})
    view = fn()
    _keep.extend((fn, made, view))
    return view


def test_wrong(request):
    forge_with_reader(request, memory_reader())
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
