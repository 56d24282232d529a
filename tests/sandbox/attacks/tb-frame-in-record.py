import concurrent.futures, threading

from attack_kit import HookReading, forge_from_frames

_pool = concurrent.futures.ThreadPoolExecutor(1)
_main = threading.get_ident()


def look():
    # Our own frame, from a traceback's tb_frame read by a pool's worker (getattr called by concurrent.futures, with no
    # frame of the package on the worker's stack); its f_back chain passes through the record's frame.
    try:
        raise ValueError
    except ValueError as error:
        frame = _pool.submit(getattr, error.__traceback__, "tb_frame").result()
    forge_from_frames(frame)


def test_wrong(request):
    request.config.pluginmanager = HookReading(request.config.pluginmanager, look)
    assert 1 + 1 == 3


def test_also_wrong():
    assert 2 + 2 == 5
